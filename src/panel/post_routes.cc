#include "panel/post_routes.h"

#include <algorithm>

namespace qeli::panel {
namespace {

constexpr PostRoute kPostRoutes[] = {
    {"/login", false},
    {"/logout"},
    {"/lang"},
    {"/sessions/kick"},
    {"/users/add"},
    {"/users/edit"},
    {"/users/remove"},
    {"/users/disable"},
    {"/users/enable"},
    {"/devices/add"},
    {"/devices/revoke"},
    {"/blocked/unblock"},
    {"/blocked/unblock-all"},
    {"/config/validate"},
    {"/config/save"},
    {"/config/restore"},
    {"/tokens/create"},
    {"/tokens/revoke"},
    {"/admins/create"},
    {"/admins/role"},
    {"/admins/remove"},
    {"/admins/logout"},
    {"/admins/totp-reset"},
    {"/account/password"},
    {"/account/totp/start"},
    {"/account/totp/enable"},
    {"/account/totp/disable"},
    {"/api/v1/sessions/kick"},
    {"/api/v1/users"},
    {"/api/v1/users/edit"},
    {"/api/v1/users/remove"},
    {"/api/v1/users/disable"},
    {"/api/v1/users/enable"},
    {"/api/v1/devices"},
    {"/api/v1/devices/revoke"},
    {"/api/v1/config/validate"},
    {"/api/v1/config"},
};

}  // namespace

std::span<const PostRoute> post_routes() { return kPostRoutes; }

bool is_post_route(std::string_view path) {
  return std::any_of(std::begin(kPostRoutes), std::end(kPostRoutes),
                     [&](const PostRoute& r) { return r.path == path; });
}

}  // namespace qeli::panel
