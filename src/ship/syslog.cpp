// RFC 5424 messages. The header fields are printable US-ASCII tokens with a
// fixed maximum length (HOSTNAME 255, APP-NAME 48, PROCID 128, MSGID 32);
// structured-data values are UTF-8 with '"', '\' and ']' escaped; MSG is the
// redacted input as stored, without a BOM (MSG-ANY).
#include "togmal/ship/syslog.h"

#include <variant>

namespace togmal::ship {

int SyslogSeverity(Severity severity) {
  switch (severity) {
    case Severity::kWarning:
      return 4;
    case Severity::kNotice:
      return 5;
    case Severity::kInfo:
      break;
  }
  return 6;
}

std::string EscapeSdValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '"' || c == '\\' || c == ']') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string SyslogToken(std::string_view text, std::size_t max) {
  std::string out;
  for (char c : text.substr(0, max)) {
    const bool printable = c > 32 && c < 127 && c != '=' && c != ']' && c != '"';
    out.push_back(printable ? c : '_');
  }
  return out.empty() ? "-" : out;
}

std::string EncodeSyslog(const store::AuditEntry& entry, const ShipContext& context, long pid) {
  const int priority = kSyslogFacility * 8 + SyslogSeverity(EntrySeverity(entry));
  // The stored time is already an RFC 3339 UTC time with microseconds, as
  // RFC 5424's TIMESTAMP wants it.
  const std::string msgid =
      entry.decision.empty() ? std::string(store::AuditKindName(entry.kind)) : entry.decision;
  std::string message = "<" + std::to_string(priority) + ">1 " + SyslogToken(entry.time, 64) + " " +
                        SyslogToken(context.host, 255) + " togmal " + std::to_string(pid) + " " +
                        SyslogToken(msgid, 32) + " [" + std::string(kSyslogSdId);
  for (const Attribute& attribute : EntryAttributes(entry, context)) {
    const std::string value = std::holds_alternative<int64_t>(attribute.value)
                                  ? std::to_string(std::get<int64_t>(attribute.value))
                                  : std::get<std::string>(attribute.value);
    message += " " + SyslogToken(attribute.key, 32) + "=\"" + EscapeSdValue(value) + "\"";
  }
  message += "]";
  const std::string body = EntryBody(entry);
  if (!body.empty()) message += " " + body;
  return message;
}

std::string OctetCounted(std::string_view message) {
  return std::to_string(message.size()) + " " + std::string(message);
}

}  // namespace togmal::ship
