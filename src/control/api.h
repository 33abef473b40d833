// The typed control API of a running server: one Request variant, one Reply type per
// request, one JSON codec (api_json.cc) and the ControlService interface that the
// server implements and that the CLI and the panel call (through control/client.h).
//
// Wire form (control/control_socket.h carries it): a request is one JSON object whose
// "cmd" names the request (`Request::kName`, the 0.7.16 names where 0.7.16 had the
// command) and whose other members are the request's fields; an answer is
// {"ok":true, ...reply fields} or {"ok":false,"code":"<ErrorCode>","error":"<text>"}.
// Unknown members are ignored (forward compatible); a member of the wrong type is a
// kBadRequest naming it.
//
// Who may call what: every request declares the Permission it needs; the server grants
// permissions per caller from its peer credentials (control/peer_access.h).
//
// To add a command: a request struct with kName/kNeeds/Reply here, add it to Request,
// its fields to api_json.cc, and a case in the server's handler (server/control_handler.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"

namespace qeli::control {

/// What a caller may do; a request needs exactly one of these.
enum class Permission : std::uint8_t {
  kRead = 1,     ///< list sessions, users, lockouts, stats, events, config text
  kOperate = 2,  ///< kick, disable/enable a user, unblock
  kManage = 4,   ///< change users, devices and the config file
};
using Permissions = std::uint8_t;  ///< a set of Permission bits
inline constexpr Permissions kAllPermissions = 7;
constexpr bool allows(Permissions set, Permission p) {
  return (set & static_cast<std::uint8_t>(p)) != 0;
}

enum class ErrorCode {
  kBadRequest,      ///< malformed request or a field of the wrong type/range
  kUnknownCommand,  ///< no such "cmd"
  kForbidden,       ///< the caller's credentials do not allow it
  kNotFound,        ///< no such user/session/address/version
  kConflict,        ///< the config changed since the caller read it; the name exists
  kInvalid,         ///< the content (config text, user fields) fails validation
  kUnavailable,     ///< the server cannot do it now (no socket, not supported here)
  kInternal,        ///< an I/O failure on the server
};
std::string_view to_string(ErrorCode c);
std::optional<ErrorCode> parse_error_code(std::string_view s);

struct ControlError {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;  ///< for a human; never contains a secret
};

// ---- replies -------------------------------------------------------------------------

struct Empty {};

/// One named counter (from the enumerable counter tables).
struct CounterValue {
  std::string name;  ///< snake_case, unique within its set
  std::uint64_t value = 0;
};

/// One live session (per-session counters; drop reasons are the drop_* counters).
struct SessionInfo {
  std::uint64_t id = 0;  ///< unique within the profile for the server's life
  std::string profile;
  std::string username;
  std::string device;  ///< "user:hex(device id)" or "user"
  std::string tunnel_ip;
  /// Its IPv6 address in the tunnel when it negotiated IPv6 inside (pool.ipv6.cidr),
  /// else empty.
  std::string tunnel_ip6;
  std::string peer;  ///< "a.b.c.d:port"
  std::int64_t connected_secs = 0;
  std::uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0;
  std::uint64_t drop_bad_source = 0, drop_policy = 0, drop_ipv6 = 0, drop_not_ipv4 = 0;
  std::uint64_t drop_queue_full = 0, drop_replay = 0, drop_tun_write = 0, drop_bad_gso = 0;
  std::uint64_t drop_too_big = 0;
  bool gso = false, close_notify = false;
  /// How the server seals this session's records: "chacha20-poly1305", "aes-256-gcm"
  /// (caps::kAesGcm) or "none (tls-bound)" (reality-tls with the TLS binding).
  std::string aead;
  std::string client_version, client_platform;
  /// TCP connections carrying the session now (stream bonding, obf.multipath: up to
  /// max_streams; 1 otherwise, 0 for a UDP session).
  std::uint64_t streams = 0;
  /// UDP roaming: times the client's address changed under the session (`peer` is the
  /// current one; docs/PROTOCOL.md §20).
  std::uint64_t roams = 0;
  /// The user's rate limit now, Mbit/s each direction (bandwidth.limit_mbps, the group's
  /// bandwidth_limit_mbps or a live `qeli set-bandwidth`); 0 = unlimited.
  double bandwidth_limit_mbps = 0;
  /// Every session counter by its table name (tunnel::SessionCounter, with help strings
  /// in tunnel/session_counters.h): the named fields above plus whatever a newer build
  /// counts, for tools that iterate rather than know each name.
  std::vector<CounterValue> counters;
};
struct SessionList {
  std::vector<SessionInfo> clients;
};

struct KickResult {
  std::uint64_t kicked = 0;
};
struct UserSwitchResult {
  bool was_disabled = false;
  std::uint64_t kicked = 0;
  std::string warning;  ///< empty = none
};

struct BlockedAddress {
  std::string ip;
  std::string user;  ///< empty: the whole address is locked; else only this user from it
  std::int64_t seconds_left = 0;
  std::uint32_t failures = 0;
};
struct BlockedList {
  std::vector<BlockedAddress> blocked;
  std::uint64_t blocked_ips = 0;  ///< blocked.size(), as 0.7.16 answered
};
struct UnblockResult {
  std::string ip;  ///< empty for unblock-all
};

/// The receive side of UDP sockets (transport::UdpRxStats, read without a lock): what a
/// UDP client session's socket, or a UDP profile's worker sockets, went through.
struct UdpSocketFigures {
  /// Datagrams the kernel dropped at the receive queue (it was full); a profile: summed
  /// over its sockets. Monotonic while the socket (the profile) lives.
  std::uint64_t kernel_drops = 0;
  /// Times the automatic receive buffer grew after such drops; a profile: summed.
  std::uint64_t buffer_grows = 0;
  /// SO_RCVBUF as the kernel granted it (double what was asked, capped by
  /// net.core.rmem_max); a profile: the largest of its sockets' (they start equal and
  /// each grows on its own drops).
  std::uint64_t recv_buffer_bytes = 0;
};
struct ProfileStats {
  std::string profile;
  std::string transport;  ///< "tcp" | "udp"
  std::string mode;       ///< the link mode ("fake-tls", "udp-quic", ...)
  std::uint16_t port = 0;
  std::uint64_t sessions = 0;  ///< live now
  /// The profile's own counters, then (by name prefix) `obfs_*`/`reality_*`/`bridge_*`
  /// carrier counters and `dns_*` DNS proxy counters.
  std::vector<CounterValue> counters;
  /// The session counters (`tx_bytes`, `rx_packets`, `drop_replay`, …) summed over every
  /// session the profile has had since start-up, live ones included: monotonic.
  std::vector<CounterValue> traffic;
  /// reality-tls: the target shape the terminator answers with (tls::describe); else empty.
  std::string tls_target;
  /// A UDP profile: its worker sockets' figures; TCP: none (null on the wire).
  std::optional<UdpSocketFigures> udp_socket;
};
struct StatsSnapshot {
  std::string version;
  std::int64_t uptime_secs = 0;
  std::int64_t started_unix_secs = 0;  ///< when the server started (wall clock)
  std::uint64_t users = 0, users_disabled = 0, blocked_ips = 0;
  std::vector<ProfileStats> profiles;
  /// [webhooks] (empty when off): enqueued, delivered, failed_attempts, given_up,
  /// enqueue_failed, monotonic since start-up (the outbox belongs to the dispatcher's
  /// thread, so its backlog is not read from here).
  std::vector<CounterValue> webhooks;
};

/// Something that happened in the server, numbered. `seq` restarts at 1 when the server
/// restarts; `boot` (random per server start) tells a reader that it did.
struct Event {
  std::uint64_t seq = 0;
  std::int64_t unix_ms = 0;
  /// session.connected | session.disconnected | session.kicked | user.disabled |
  /// user.enabled | user.quota_reached | user.expired | auth.lockout | config.changed |
  /// users.changed | device.issued | device.revoked
  std::string type;
  std::string profile, username, device, ip, reason;
  std::uint64_t rx_bytes = 0, tx_bytes = 0;
};
struct EventList {
  std::string boot;
  std::uint64_t last_seq = 0;  ///< the newest event's seq (0 = none yet)
  std::vector<Event> events;
};

struct ConfigFinding {
  std::string severity;  ///< "error" | "warning" | "unknown-key"
  std::string file, section, key;
  int line = 0;
  std::string message;
  std::string text;  ///< the whole line as check-config prints it
};
struct ConfigText {
  std::string path;
  std::string text;
  std::string sha256;  ///< hex of text: SaveConfig's base, to refuse lost updates
};
struct ValidationResult {
  bool ok = false;  ///< no error and no host-privileged key changed
  std::vector<ConfigFinding> findings;
  /// Reload only: live sessions the reload ended (their users removed, disabled, given a
  /// new password or no longer allowed on the profile).
  std::uint32_t sessions_ended = 0;
};
struct ConfigSaved {
  std::string sha256;
  std::string history_id;  ///< the version saved before this one ("" if it was new)
  bool reloaded = false;
  std::vector<ConfigFinding> findings;  ///< warnings that remained
  /// Saved but not reloaded: why the server refused the reload (its first error finding;
  /// it keeps running the previous configuration). Empty when it reloaded, or when the
  /// text was the file's already (history_id empty: nothing to reload).
  std::string reload_error;
};
struct ConfigVersionInfo {
  std::string id;  ///< "20261201T223500Z-<8 hex>"
  std::int64_t unix_secs = 0;
  std::string actor;
  std::string sha256;
  std::uint64_t size = 0;
};
struct ConfigHistory {
  std::vector<ConfigVersionInfo> versions;  ///< newest first
};

struct DeviceInfo {
  std::string id;    ///< 8 hex digits (config/device_credential.h)
  std::string name;  ///< what the operator called it
};
struct UserInfo {
  std::string name;
  std::string source_file;
  bool enabled = true;         ///< the config's `enabled`
  bool disabled_live = false;  ///< disable-user in effect
  std::string group;
  std::string static_ip;
  std::uint32_t max_sessions = 0;
  std::vector<std::string> profiles, routes, allowed_networks, client_subnets;
  double bandwidth_limit_mbps = 0, data_limit_gb = 0;
  std::optional<std::uint64_t> expire_at;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::uint64_t sessions = 0;  ///< live now
  std::vector<DeviceInfo> devices;
};
struct GroupInfo {
  std::string name;
  double bandwidth_limit_mbps = 0;
  std::uint32_t max_sessions = 0;
  std::vector<std::string> allowed_networks;
};
struct UserList {
  std::vector<UserInfo> users;
  std::vector<GroupInfo> groups;
};

/// One user's traffic (`qeli usage`): lifetime totals since the last reset.
struct UserUsage {
  std::string username;
  std::uint64_t down_bytes = 0;  ///< server → client (what data_limit_gb counts)
  std::uint64_t up_bytes = 0;
  std::optional<std::uint64_t> quota_bytes;  ///< data_limit_gb in bytes; absent = none
  double limit_mbps = 0;                     ///< in effect now (0 = unlimited)
  bool limit_live = false;                   ///< set by set-bandwidth, not the config
};
struct UsageList {
  std::vector<UserUsage> users;
};
struct BandwidthSet {
  std::string username;
  double mbps = 0;
};

/// One attempt to deliver a webhook (server/webhook_outbox.h's delivery log).
struct WebhookDelivery {
  std::int64_t at_ms = 0;   ///< unix milliseconds
  std::string id;           ///< the event's id (the receiver's idempotency key)
  std::string type;         ///< "session.connected", …
  std::string result;       ///< "delivered" | "failed" (retried later) | "given-up"
  std::int32_t status = 0;  ///< the receiver's HTTP status; 0 = no answer
  std::string detail;       ///< why it failed ("" when delivered); never the secret
};
struct WebhookLog {
  bool enabled = false;                     ///< [webhooks] enabled (else the rest is empty)
  std::uint64_t pending = 0;                ///< in the outbox, waiting for a (re)try
  std::vector<WebhookDelivery> deliveries;  ///< newest first
};

/// add-user, remove-user, edit-user, revoke-device: what changed in the users file and
/// what the reload after it did.
/// One line of the server's log (sys/log_memory.h).
struct LogLine {
  std::uint64_t seq = 0;  ///< from 1 per server start
  std::int64_t unix_ms = 0;
  std::string level;  ///< "error" | "warning" | "info" | "debug" | "trace"
  std::string text;
};
struct LogLines {
  std::uint64_t last_seq = 0;  ///< the newest line the server has (to ask for what follows)
  std::vector<LogLine> lines;  ///< oldest first
};

struct UserChanged {
  std::string username;
  std::string users_file;            ///< the file that was written
  bool reloaded = false;             ///< false: the reload refused the config (see the log)
  std::uint32_t sessions_ended = 0;  ///< by the reload (removed user, revoked device)
};
/// add-device: the credential exists only in this answer (the server keeps its hash).
struct DeviceIssued {
  std::string username;
  std::string id;
  std::string name;
  std::string credential;  ///< qd1.<id>.<secret>: the device's password, shown once
  std::string profile;     ///< the profile the link is for (empty without a link)
  std::string link;        ///< qeli:// link with the credential; empty without "host"
  bool reloaded = false;
};

struct CallerInfo {
  std::uint32_t uid = 0, gid = 0;
  std::int32_t pid = 0;
  std::vector<std::string> permissions;  ///< "read", "operate", "manage"
};

/// A running client's tunnel (ClientStatusReport::tunnel), while it is connected.
struct ClientTunnelStatus {
  std::string server_address;  ///< "203.0.113.7:443", the address in use
  std::string dev;
  std::string tunnel_address;  ///< "10.9.0.2/24"
  std::string server_tunnel_address;
  std::string tunnel_address6;  ///< "fd00:9::2/64" with IPv6 inside, else empty
  std::uint64_t mtu = 0;
  bool full_tunnel = false;
  std::string extensions;            ///< "gso, session-close"
  std::int64_t connected_since = 0;  ///< unix seconds
  std::uint64_t rx_bytes = 0, tx_bytes = 0, rx_packets = 0, tx_packets = 0;
  std::uint64_t rx_bytes_per_sec = 0, tx_bytes_per_sec = 0;  ///< over the last ~10 s
  /// A UDP session: its socket's figures (on the wire as udp_kernel_drops,
  /// udp_buffer_grows, udp_recv_buffer_bytes, left out for TCP).
  std::optional<UdpSocketFigures> udp;
};
/// What `qeli status` shows for one client (a client's status socket answers it; the
/// wire form is flat: the tunnel's members sit beside the others, and absent optional
/// members are left out; docs/OPERATIONS.md "Client status").
struct ClientStatusReport {
  std::string state;  ///< starting | connecting | connected | waiting | stopping
  std::string detail;
  std::int64_t state_since = 0, started = 0, now = 0;  ///< unix seconds
  std::string server, user, proto, mode;
  std::uint64_t sessions = 0;
  std::string last_session_end;
  std::optional<ClientTunnelStatus> tunnel;
};

// ---- requests ------------------------------------------------------------------------

struct ListSessions {
  static constexpr std::string_view kName = "list-clients";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = SessionList;
};
/// Ends every session of `username`, or only session `session_id` of it when given.
struct Kick {
  static constexpr std::string_view kName = "kick";
  static constexpr Permission kNeeds = Permission::kOperate;
  using Reply = KickResult;
  std::string username;
  std::optional<std::uint64_t> session_id;
  /// Why, for the client (our close extension): "kicked" (reconnect) or
  /// "credentials-changed" (passwd / share-link / remove-user: do not reconnect).
  std::string reason = "kicked";
};
struct DisableUser {
  static constexpr std::string_view kName = "disable-user";
  static constexpr Permission kNeeds = Permission::kOperate;
  using Reply = UserSwitchResult;
  std::string username;
};
struct EnableUser {
  static constexpr std::string_view kName = "enable-user";
  static constexpr Permission kNeeds = Permission::kOperate;
  using Reply = UserSwitchResult;
  std::string username;
};
struct ListBlocked {
  static constexpr std::string_view kName = "list-blocked";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = BlockedList;
};
struct Unblock {
  static constexpr std::string_view kName = "unblock";
  static constexpr Permission kNeeds = Permission::kOperate;
  using Reply = UnblockResult;
  std::string ip;
};
struct UnblockAll {
  static constexpr std::string_view kName = "unblock-all";
  static constexpr Permission kNeeds = Permission::kOperate;
  using Reply = UnblockResult;
};
struct GetStats {
  static constexpr std::string_view kName = "stats";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = StatsSnapshot;
};
/// Events with seq > `after` (oldest first), at most `limit` (1..1000).
struct GetEvents {
  static constexpr std::string_view kName = "events";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = EventList;
  std::uint64_t after = 0;
  std::uint32_t limit = 200;
};
struct ListUsers {
  static constexpr std::string_view kName = "list-users";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = UserList;
};
struct GetConfig {
  static constexpr std::string_view kName = "config-get";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = ConfigText;
};
/// Validates `text` as the server config exactly as check-config does, plus the
/// panel's rule that host-privileged keys (hooks, paths) may not change.
struct ValidateConfig {
  static constexpr std::string_view kName = "config-validate";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = ValidationResult;
  std::string text;
};
/// Validates, keeps the current file in the history, writes `text` atomically and
/// reloads (as SIGHUP). Refused with kConflict when the file's sha256 is not `base_sha256`.
struct SaveConfig {
  static constexpr std::string_view kName = "config-save";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = ConfigSaved;
  std::string text;
  std::string base_sha256;
  std::string actor;  ///< who asked (the panel's admin), for the history
};
struct ListConfigHistory {
  static constexpr std::string_view kName = "config-history";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = ConfigHistory;
};
struct GetConfigVersion {
  static constexpr std::string_view kName = "config-version";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = ConfigText;
  std::string id;
};
/// Re-reads the config and users file (SIGHUP without the signal).
struct Reload {
  static constexpr std::string_view kName = "reload";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = ValidationResult;
};
/// `qeli set-bandwidth USER MBPS`: the user's rate limit (each direction, shared by all
/// of its sessions) now, until the server restarts; 0 = unlimited.
struct SetBandwidth {
  static constexpr std::string_view kName = "set-bandwidth";
  static constexpr Permission kNeeds = Permission::kOperate;
  using Reply = BandwidthSet;
  std::string username;
  double mbps = 0;
};
/// `qeli usage`: per-user totals and limits.
struct GetUsage {
  static constexpr std::string_view kName = "usage";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = UsageList;
};
/// The webhook outbox's recent delivery attempts (the panel's Webhooks page).
struct GetWebhookLog {
  static constexpr std::string_view kName = "webhook-log";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = WebhookLog;
  std::uint32_t limit = 100;  ///< 1..1000
};
/// The server's newest log lines, kept in memory (the panel's Logs page): those after
/// `after` at `level` or above, the newest `limit` (more than that came: the older ones
/// are skipped — ask more often). kBadRequest: an unknown level.
struct GetLogs {
  static constexpr std::string_view kName = "logs";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = LogLines;
  std::uint64_t after = 0;
  std::uint32_t limit = 200;   ///< 1..1000 (1000 lines of 2 KiB fit the socket's 4 MiB)
  std::string level = "info";  ///< the lowest level shown: error|warn|info|debug|trace
};
/// `qeli usage --reset USER`: the user's totals back to zero (a used-up quota is lifted).
struct ResetUsage {
  static constexpr std::string_view kName = "reset-usage";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = Empty;
  std::string username;
};
/// Adds [user:NAME] to the users file (auth.users_file) with the Argon2id hash of a
/// random password nobody is told: the user logs in with device links (add-device), or a
/// password set later with `qeli passwd`. Then reloads. kConflict: the name exists.
struct AddUser {
  static constexpr std::string_view kName = "add-user";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = UserChanged;
  std::string username;
  std::vector<std::string> profiles;  ///< empty = every profile
  std::uint32_t max_sessions = 0;     ///< 0 = the group's / unlimited
  std::string actor;                  ///< who asked (the panel's admin), for the log
};
/// Removes the user's section from the users file and reloads (its sessions end with
/// "credentials changed"). Users defined inline in server.conf are kInvalid.
struct RemoveUser {
  static constexpr std::string_view kName = "remove-user";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = UserChanged;
  std::string username;
  std::string actor;
};
/// Changes a user's limits in the users file: each field given is set, each one absent
/// keeps its value. Before anything is written the resulting config is judged exactly as
/// start-up judges it (a refusal is kInvalid with the loader's own message, and the file
/// stays as it was); then the server reloads. Users defined inline in server.conf are
/// kInvalid (as for remove-user). A field equal to the user's value now (as list-users
/// shows it) leaves its line alone, so a form that sends every field rewrites only what
/// the admin changed.
struct EditUser {
  static constexpr std::string_view kName = "edit-user";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = UserChanged;
  std::string username;
  std::string actor;
  std::optional<std::string> group;                  ///< "" = no group
  std::optional<std::string> static_ip;              ///< "" = from the pool
  std::optional<std::uint32_t> max_sessions;         ///< 0 = the group's / unlimited
  std::optional<std::vector<std::string>> profiles;  ///< empty = every profile
  /// `route` lines ("<cidr> [gateway=<ip>] [metric=<n>]"); empty = the profile's routes.
  std::optional<std::vector<std::string>> routes;
  std::optional<std::vector<std::string>> allowed_networks;  ///< empty = any destination
  std::optional<double> bandwidth_limit_mbps;                ///< 0 = unlimited
  std::optional<double> data_limit_gb;                       ///< 0 = unlimited
  std::optional<std::uint64_t> expire_at;  ///< unix seconds; 0 = never expires (removed)
  std::optional<bool> enabled;             ///< the config's `enabled`
};
/// A credential for one device of the user (config/device_issue.h) and, with `host`, its
/// qeli:// link for `profile` (empty: the user's first profile); then reloads.
struct AddDevice {
  static constexpr std::string_view kName = "add-device";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = DeviceIssued;
  std::string username;
  std::string name;     ///< the device's name, unique per user
  std::string host;     ///< HOST[:PORT] clients dial; empty = no link
  std::string profile;  ///< empty = the user's first allowed profile
  std::string actor;
};
/// Removes the device's hash and reloads: its link stops logging in, its sessions end,
/// the user's other devices are untouched.
struct RevokeDevice {
  static constexpr std::string_view kName = "revoke-device";
  static constexpr Permission kNeeds = Permission::kManage;
  using Reply = UserChanged;
  std::string username;
  std::string id;
  std::string actor;
};
struct Whoami {
  static constexpr std::string_view kName = "whoami";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = CallerInfo;
};

/// A client's status socket only (a server answers kUnknownCommand).
struct GetClientStatus {
  static constexpr std::string_view kName = "status";
  static constexpr Permission kNeeds = Permission::kRead;
  using Reply = ClientStatusReport;
};

using Request = std::variant<ListSessions, Kick, DisableUser, EnableUser, ListBlocked, Unblock,
                             UnblockAll, GetStats, GetEvents, ListUsers, GetConfig, ValidateConfig,
                             SaveConfig, ListConfigHistory, GetConfigVersion, Reload, Whoami,
                             GetClientStatus, SetBandwidth, GetUsage, ResetUsage, AddUser,
                             RemoveUser, AddDevice, RevokeDevice, GetWebhookLog, EditUser, GetLogs>;
using Response =
    std::variant<Empty, SessionList, KickResult, UserSwitchResult, BlockedList, UnblockResult,
                 StatsSnapshot, EventList, UserList, ConfigText, ValidationResult, ConfigSaved,
                 ConfigHistory, CallerInfo, ClientStatusReport, UsageList, BandwidthSet,
                 UserChanged, DeviceIssued, WebhookLog, LogLines>;

std::string_view name_of(const Request& r);
Permission needs(const Request& r);

/// Who is calling (from SO_PEERCRED) and what they may do.
struct Caller {
  std::uint32_t uid = 0, gid = 0;
  std::int32_t pid = 0;
  Permissions permissions = 0;
};

/// Implemented by the server (and by fakes in tests); called by the CLI and the panel
/// through control::SocketClient. handle() is thread-safe in the server's implementation.
class ControlService {
 public:
  virtual ~ControlService() = default;
  virtual Result<Response, ControlError> handle(const Request& request, const Caller& caller) = 0;
};

/// Calls `svc` with `req` and returns the typed reply (a reply of another type is a
/// kInternal error: a server/client version mismatch).
template <class Req>
Result<typename Req::Reply, ControlError> call(ControlService& svc, const Req& req,
                                               const Caller& caller = {}) {
  auto r = svc.handle(Request{req}, caller);
  if (!r.ok()) return fail(r.error());
  if (auto* v = std::get_if<typename Req::Reply>(&r.value())) return std::move(*v);
  return fail(
      ControlError{ErrorCode::kInternal, "unexpected answer to " + std::string(Req::kName)});
}

}  // namespace qeli::control
