#include "sys/nft_context.h"

#include <nftables/libnftables.h>

#include <utility>

#include "sys/names.h"

namespace qeli::sys {

NftContext::NftContext(nft_ctx* ctx) : ctx_(ctx) {}
NftContext::NftContext(NftContext&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
NftContext& NftContext::operator=(NftContext&& o) noexcept {
  if (this != &o) {
    if (ctx_ != nullptr) nft_ctx_free(ctx_);
    ctx_ = std::exchange(o.ctx_, nullptr);
  }
  return *this;
}
NftContext::~NftContext() {
  if (ctx_ != nullptr) nft_ctx_free(ctx_);
}

HostResult<NftContext> NftContext::open() {
  nft_ctx* ctx = nft_ctx_new(NFT_CTX_DEFAULT);
  if (ctx == nullptr) return host_fail(HostErrc::kNftables, "nft_ctx_new failed");
  // Capture output and errors in memory instead of the process's stdout/stderr.
  if (nft_ctx_buffer_output(ctx) != 0 || nft_ctx_buffer_error(ctx) != 0) {
    nft_ctx_free(ctx);
    return host_fail(HostErrc::kNftables, "cannot buffer libnftables output");
  }
  return NftContext(ctx);
}

HostResult<std::string> NftContext::run_with_flags(std::string_view script, bool json) {
  const unsigned flags = nft_ctx_output_get_flags(ctx_);
  nft_ctx_output_set_flags(ctx_, json ? (flags | NFT_CTX_OUTPUT_JSON)
                                      : (flags & ~static_cast<unsigned>(NFT_CTX_OUTPUT_JSON)));
  const std::string buf(script);
  const int rc = nft_run_cmd_from_buffer(ctx_, buf.c_str());
  // Reading a buffer also resets it for the next command.
  std::string out = nft_ctx_get_output_buffer(ctx_);
  std::string err = nft_ctx_get_error_buffer(ctx_);
  if (rc != 0) {
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    const bool missing = err.find("No such file or directory") != std::string::npos;
    return host_fail(missing ? HostErrc::kNotFound : HostErrc::kNftables,
                     err.empty() ? "libnftables failed" : err);
  }
  return out;
}

HostResult<std::string> NftContext::run(std::string_view script) {
  return run_with_flags(script, false);
}

HostResult<std::string> NftContext::run_json(std::string_view script) {
  return run_with_flags(script, true);
}

namespace {

HostStatus check_table_ref(std::string_view family, std::string_view name) {
  const bool family_ok = family == "inet" || family == "ip" || family == "ip6";
  if (!family_ok || !is_valid_nft_name(name)) {
    return host_fail(HostErrc::kInvalidArgument,
                     "bad nft table '" + std::string(family) + " " + std::string(name) + "'");
  }
  return {};
}

}  // namespace

HostResult<bool> NftContext::table_exists(std::string_view family, std::string_view name) {
  if (auto ok = check_table_ref(family, name); !ok) return fail(ok.error());
  auto r = run("list table " + std::string(family) + " " + std::string(name));
  if (r) return true;
  if (r.error().code == HostErrc::kNotFound) return false;
  return fail(r.error());
}

HostResult<bool> NftContext::delete_table(std::string_view family, std::string_view name) {
  if (auto ok = check_table_ref(family, name); !ok) return fail(ok.error());
  auto r = run("delete table " + std::string(family) + " " + std::string(name));
  if (r) return true;
  if (r.error().code == HostErrc::kNotFound) return false;
  return fail(r.error());
}

}  // namespace qeli::sys
