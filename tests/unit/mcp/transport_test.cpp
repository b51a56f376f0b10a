#include "togmal/mcp/transport.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "memory_transport.h"

namespace togmal::mcp {
namespace {

/// A pipe pair feeding a StdioTransport and one capturing what it writes.
class Pipes {
 public:
  Pipes() {
    EXPECT_EQ(pipe2(in_, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(out_, O_CLOEXEC), 0);
  }
  ~Pipes() {
    for (int fd : {in_[0], in_[1], out_[0], out_[1]}) {
      if (fd >= 0) close(fd);
    }
  }
  void Write(const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t n = write(in_[1], data.data() + done, data.size() - done);
      ASSERT_GT(n, 0);
      done += static_cast<std::size_t>(n);
    }
  }
  void CloseInput() {
    close(in_[1]);
    in_[1] = -1;
  }
  /// Ends the output pipe (the transport does not own the descriptor).
  void CloseOutput() {
    close(out_[1]);
    out_[1] = -1;
  }
  /// Reads until every write end is closed.
  std::string ReadOutput() {
    std::string all;
    char buffer[4096];
    ssize_t n;
    while ((n = read(out_[0], buffer, sizeof buffer)) > 0)
      all.append(buffer, static_cast<std::size_t>(n));
    return all;
  }
  int in() const { return in_[0]; }
  int out() const { return out_[1]; }

 private:
  int in_[2] = {-1, -1};
  int out_[2] = {-1, -1};
};

TEST(StdioTransportTest, SplitsLinesAndEndsAtEof) {
  Pipes pipes;
  StdioTransport transport(kDefaultMaxLineBytes, pipes.in(), pipes.out());
  pipes.Write("{\"a\":1}\n{\"b\":2}\r\n\nlast-without-newline");
  pipes.CloseInput();
  std::vector<std::string> lines;
  for (;;) {
    IncomingLine line = transport.Receive();
    if (line.kind == IncomingLine::Kind::kClosed) break;
    ASSERT_EQ(line.kind, IncomingLine::Kind::kMessage);
    lines.push_back(line.text);
  }
  EXPECT_EQ(lines,
            (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "", "last-without-newline"}));
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kClosed);  // stays closed
}

TEST(StdioTransportTest, OversizeLineIsSkippedAndTheNextOneArrives) {
  Pipes pipes;
  StdioTransport transport(100, pipes.in(), pipes.out());
  std::thread writer([&] {
    pipes.Write(std::string(100, 'x') + "\n");      // exactly the limit: fine
    pipes.Write(std::string(300000, 'y') + "\n");   // spans many reads
    pipes.Write(std::string(101, 'z') + "\nok\n");  // one over, in one read
    pipes.CloseInput();
  });
  IncomingLine first = transport.Receive();
  EXPECT_EQ(first.kind, IncomingLine::Kind::kMessage);
  EXPECT_EQ(first.text.size(), 100u);
  IncomingLine second = transport.Receive();
  EXPECT_EQ(second.kind, IncomingLine::Kind::kOversize);
  EXPECT_NE(second.text.find("100 bytes"), std::string::npos) << second.text;
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kOversize);
  IncomingLine last = transport.Receive();
  EXPECT_EQ(last.kind, IncomingLine::Kind::kMessage);
  EXPECT_EQ(last.text, "ok");
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kClosed);
  writer.join();
}

// One read brings many lines; the limit counts only the line being read,
// not the lines before it in the same buffer.
TEST(StdioTransportTest, ManyLinesPerReadAndALineAcrossReads) {
  Pipes pipes;
  StdioTransport transport(100, pipes.in(), pipes.out());
  std::string burst;
  for (int i = 0; i < 1000; ++i) burst += std::to_string(i) + "\n";
  pipes.Write(burst + std::string(90, 'p'));
  for (int i = 0; i < 1000; ++i) {
    IncomingLine line = transport.Receive();
    ASSERT_EQ(line.kind, IncomingLine::Kind::kMessage);
    ASSERT_EQ(line.text, std::to_string(i));
  }
  pipes.Write(std::string(10, 'q') + "\n" + std::string(101, 'r') + "\nend\n");
  pipes.CloseInput();
  IncomingLine across = transport.Receive();
  EXPECT_EQ(across.kind, IncomingLine::Kind::kMessage);
  EXPECT_EQ(across.text, std::string(90, 'p') + std::string(10, 'q'));
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kOversize);
  IncomingLine last = transport.Receive();
  EXPECT_EQ(last.kind, IncomingLine::Kind::kMessage);
  EXPECT_EQ(last.text, "end");
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kClosed);
}

TEST(StdioTransportTest, StopWakesABlockedReceive) {
  Pipes pipes;
  StdioTransport transport(kDefaultMaxLineBytes, pipes.in(), pipes.out());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    transport.Stop();
  });
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kClosed);
  stopper.join();
}

TEST(StdioTransportTest, SignalStopsReceive) {
  Pipes pipes;
  StdioTransport transport(kDefaultMaxLineBytes, pipes.in(), pipes.out());
  struct sigaction previous {};
  sigaction(SIGUSR1, nullptr, &previous);
  transport.StopOnSignals({SIGUSR1});
  std::thread signaller([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    raise(SIGUSR1);
  });
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kClosed);
  signaller.join();
  sigaction(SIGUSR1, &previous, nullptr);
}

TEST(StdioTransportTest, ConcurrentSendsNeverInterleave) {
  Pipes pipes;
  StdioTransport transport(kDefaultMaxLineBytes, pipes.in(), pipes.out());
  std::string reader_output;
  // Drain concurrently: the pipe buffer is smaller than what is written.
  std::thread reader([&] { reader_output = pipes.ReadOutput(); });
  std::vector<std::thread> writers;
  for (char c : {'a', 'b', 'c', 'd'}) {
    writers.emplace_back([&transport, c] {
      for (int i = 0; i < 200; ++i) transport.Send(std::string(1000, c));
    });
  }
  for (auto& writer : writers) writer.join();
  pipes.CloseOutput();
  reader.join();
  std::size_t lines = 0;
  std::size_t start = 0;
  while (start < reader_output.size()) {
    std::size_t end = reader_output.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    std::string line = reader_output.substr(start, end - start);
    ASSERT_EQ(line.size(), 1000u);
    EXPECT_EQ(line.find_first_not_of(line[0]), std::string::npos);
    ++lines;
    start = end + 1;
  }
  EXPECT_EQ(lines, 800u);
}

TEST(MemoryTransportTest, DeliversInOrderThenCloses) {
  MemoryTransport transport;
  transport.Push("one");
  transport.PushOversize();
  transport.Close();
  EXPECT_EQ(transport.Receive().text, "one");
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kOversize);
  EXPECT_EQ(transport.Receive().kind, IncomingLine::Kind::kClosed);
  transport.Send("out");
  EXPECT_TRUE(transport.WaitForSent(1, 10));
  EXPECT_EQ(transport.Sent(), std::vector<std::string>{"out"});
}

}  // namespace
}  // namespace togmal::mcp
