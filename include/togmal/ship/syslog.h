#pragma once
/// Syslog messages in the RFC 5424 format, one per audit entry:
///   <PRI>1 TIMESTAMP HOSTNAME togmal PROCID MSGID [togmal@32473 k="v" …] MSG
/// and RFC 6587's octet-counting frame for TCP.

#include <string>
#include <string_view>

#include "togmal/ship/record.h"
#include "togmal/store/audit_log.h"

namespace togmal::ship {

/// The SD-ID of togmal's structured data. RFC 5424 wants NAME@<private
/// enterprise number> for SD-IDs not registered with IANA; 32473 is the
/// number reserved for documentation and examples (RFC 5612).
inline constexpr std::string_view kSyslogSdId = "togmal@32473";

/// Facility 1 (user-level): the guard runs as the user, like the agent.
inline constexpr int kSyslogFacility = 1;

/// RFC 5424 severity: warning 4, notice 5, informational 6.
int SyslogSeverity(Severity severity);

/// A PARAM-VALUE with '"', '\' and ']' escaped by a backslash (RFC 5424 6.3.3).
std::string EscapeSdValue(std::string_view value);

/// A PARAM-NAME or header field: printable US-ASCII without '=', ' ', ']'
/// and '"', at most `max` characters; other characters become '_', and an
/// empty field is "-" (NILVALUE).
std::string SyslogToken(std::string_view text, std::size_t max);

/// The whole message for one entry (no trailing newline). `pid` is PROCID.
std::string EncodeSyslog(const store::AuditEntry& entry, const ShipContext& context, long pid);

/// RFC 6587 octet counting: "<length> <message>".
std::string OctetCounted(std::string_view message);

}  // namespace togmal::ship
