#include "tests/cluster/tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace wm::test {

TcpProxy::TcpProxy(std::string target_host, uint16_t target_port)
    : TcpProxy(std::move(target_host), std::vector<uint16_t>{target_port}) {}

TcpProxy::TcpProxy(std::string target_host, std::vector<uint16_t> target_ports)
    : host_(std::move(target_host)), target_ports_(std::move(target_ports)) {
  listen_on(0);
}

void TcpProxy::listen_on(uint16_t port) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  int yes = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener, 64) != 0)
    throw std::runtime_error("proxy: cannot listen");
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  std::lock_guard lock(mutex_);
  listener_ = listener;
  acceptors_.emplace_back([this, listener] { accept_loop(listener); });
}

TcpProxy::~TcpProxy() {
  cut();
  for (auto& t : acceptors_) t.join();
  for (auto& t : threads_) t.join();
  for (int s : sockets_) close(s);
}

void TcpProxy::cut() {
  cut_ = true;
  std::lock_guard lock(mutex_);
  if (listener_ >= 0) shutdown(listener_, SHUT_RDWR);
  listener_ = -1;
  for (int s : sockets_) shutdown(s, SHUT_RDWR);
}

void TcpProxy::restore() {
  for (auto& t : acceptors_) t.join();
  acceptors_.clear();
  cut_ = false;
  listen_on(port_);
}

void TcpProxy::accept_loop(int listener) {
  while (!cut_) {
    int client = accept(listener, nullptr, nullptr);
    if (client < 0) break;
    std::lock_guard lock(mutex_);
    if (cut_) {
      close(client);
      break;
    }
    sockets_.push_back(client);
    threads_.emplace_back([this, client] { pump(client); });
  }
  close(listener);
}

void TcpProxy::set_targets(std::vector<uint16_t> ports) {
  std::lock_guard lock(mutex_);
  target_ports_ = std::move(ports);
}

// A connected socket to the next target, or -1 when it refuses: as kube-proxy, which picks an endpoint and does not
// try another, so a caller sees a replica that is gone until the endpoints drop it.
int TcpProxy::connect_upstream() {
  uint16_t port;
  {
    std::lock_guard lock(mutex_);
    if (target_ports_.empty()) return -1;
    port = target_ports_[next_target_++ % target_ports_.size()];
  }
  int upstream = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
  if (connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return upstream;
  close(upstream);
  return -1;
}

void TcpProxy::pump(int client) {
  const int upstream = connect_upstream();
  if (upstream >= 0) {
    std::lock_guard lock(mutex_);
    sockets_.push_back(upstream);
  }
  if (upstream >= 0) {
    pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
    char buffer[16384];
    while (!cut_) {
      if (poll(fds, 2, 200) < 0) break;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
        // MSG_NOSIGNAL: a peer that has closed ends this pair of connections, not the test (SIGPIPE).
        done = n <= 0 || send(fds[1 - i].fd, buffer, static_cast<size_t>(n), MSG_NOSIGNAL) != n;
      }
      if (done) break;
    }
  }
  shutdown(client, SHUT_RDWR);
  if (upstream >= 0) shutdown(upstream, SHUT_RDWR);
}

}  // namespace wm::test
