#include "togmal/util/config_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace togmal::util {

Result<std::optional<std::string>> ReadConfigFile(const std::filesystem::path& path,
                                                  std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer. The type is then
  // checked on the open descriptor, so the file cannot be swapped in between.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return Fail("cannot open " + path.string() + ": " + std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return Fail("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    return Fail(path.string() + " is not a regular file");
  }
  if (static_cast<std::size_t>(info.st_size) > max_bytes) {
    return Fail(path.string() + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string text;
  text.resize(static_cast<std::size_t>(info.st_size) + 1);
  std::size_t length = 0;
  for (;;) {
    if (length == text.size()) {
      // It grew while being read: allow up to the cap.
      if (text.size() > max_bytes) {
        return Fail(path.string() + " is larger than " + std::to_string(max_bytes) + " bytes");
      }
      text.resize(std::min(text.size() * 2, max_bytes + 1));
    }
    const ssize_t got = ::read(fd, text.data() + length, text.size() - length);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Fail("cannot read " + path.string() + ": " + std::strerror(errno));
    }
    if (got == 0) break;
    length += static_cast<std::size_t>(got);
  }
  text.resize(length);
  return std::optional<std::string>(std::move(text));
}

}  // namespace togmal::util
