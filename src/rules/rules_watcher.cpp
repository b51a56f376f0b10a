#include "togmal/rules/rules_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace togmal::rules {

struct RulesWatcher::State {
  int inotify = -1;
  int stop_pipe[2] = {-1, -1};
  std::thread thread;

  ~State() {
    if (stop_pipe[1] >= 0) {
      char byte = 1;
      (void)!write(stop_pipe[1], &byte, 1);
    }
    if (thread.joinable()) thread.join();
    for (int fd : {inotify, stop_pipe[0], stop_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
  }
};

namespace {

// Drains pending events; true if one names `name`.
bool DrainEvents(int fd, const std::string& name) {
  alignas(inotify_event) char buffer[8192];
  bool relevant = false;
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got <= 0) break;
    for (ssize_t offset = 0; offset < got;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
      if (event->len > 0 && name == event->name) relevant = true;
      if (event->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW)) relevant = true;
      offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  return relevant;
}

}  // namespace

Result<std::unique_ptr<RulesWatcher>> RulesWatcher::Start(const std::filesystem::path& file,
                                                          std::function<void()> on_change,
                                                          std::chrono::milliseconds settle) {
  std::filesystem::path dir = file.parent_path();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  auto state = std::make_unique<State>();
  state->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (state->inotify < 0) return Fail(std::string("inotify: ") + std::strerror(errno));
  if (inotify_add_watch(state->inotify, dir.c_str(),
                        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE |
                            IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
    return Fail("cannot watch " + dir.string() + ": " + std::strerror(errno));
  }
  if (pipe2(state->stop_pipe, O_CLOEXEC) != 0) {
    return Fail(std::string("pipe: ") + std::strerror(errno));
  }
  std::string name = file.filename().string();
  int inotify = state->inotify;
  int stop = state->stop_pipe[0];
  state->thread = std::thread([inotify, stop, name, settle, on_change = std::move(on_change)] {
    bool pending = false;
    for (;;) {
      pollfd fds[2] = {{inotify, POLLIN, 0}, {stop, POLLIN, 0}};
      // While a change is pending, wait only `settle` for more of the burst.
      int ready = poll(fds, 2, pending ? static_cast<int>(settle.count()) : -1);
      if (ready < 0 && errno != EINTR) return;
      if (fds[1].revents != 0) return;
      if (ready == 0 && pending) {
        pending = false;
        on_change();
        continue;
      }
      if (fds[0].revents & POLLIN) pending = DrainEvents(inotify, name) || pending;
    }
  });
  std::unique_ptr<RulesWatcher> watcher(new RulesWatcher());
  watcher->state_ = std::move(state);
  return watcher;
}

RulesWatcher::~RulesWatcher() = default;

}  // namespace togmal::rules
