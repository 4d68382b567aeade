// A TCP forwarder between the webhook and the API server, so that a test can take the API server away from the
// webhook alone (the shared control plane stays up for the API server's own calls to the webhook). Given several
// ports it balances, as a Service does across its endpoints: each connection goes to the next port in turn, and is
// closed if that one refuses it (a replica that is gone, until set_targets() drops it as the endpoints would).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace wm::test {

class TcpProxy {
 public:
  TcpProxy(std::string target_host, uint16_t target_port);
  TcpProxy(std::string target_host, std::vector<uint16_t> target_ports);
  ~TcpProxy();
  uint16_t port() const { return port_; }
  // Closes every connection and refuses new ones: from the webhook's side, the API server is gone.
  void cut();
  // Listens again on the same port: the API server is back.
  void restore();
  // Where new connections go from now on (endpoints changing); open ones stay where they are.
  void set_targets(std::vector<uint16_t> ports);

 private:
  void listen_on(uint16_t port);
  void accept_loop(int listener);
  void pump(int client);
  int connect_upstream();
  std::string host_;
  std::vector<uint16_t> target_ports_;
  std::atomic<size_t> next_target_{0};
  uint16_t port_ = 0;
  int listener_ = -1;
  std::atomic<bool> cut_{false};
  std::mutex mutex_;
  std::vector<int> sockets_;
  std::vector<std::thread> threads_;
  std::vector<std::thread> acceptors_;
};

}  // namespace wm::test
