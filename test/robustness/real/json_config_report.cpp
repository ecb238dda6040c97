// A service's configuration loader: parses a JSON document, validates it
// into typed structs with nlohmann/json's ADL conversions, and prints a
// report with {fmt}. Real-world code, no kernel: dmalint must stay silent.
#include <nlohmann/json.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace svc {

struct Endpoint {
  std::string host;
  int port = 0;
  std::optional<std::string> tls_cert;
};

struct Config {
  std::string name;
  std::vector<Endpoint> endpoints;
  std::map<std::string, double> limits;
  std::chrono::milliseconds timeout{1000};
};

void from_json(const nlohmann::json& j, Endpoint& e) {
  j.at("host").get_to(e.host);
  j.at("port").get_to(e.port);
  if (e.port <= 0 || e.port > 65535)
    throw std::out_of_range(fmt::format("port {} out of range", e.port));
  if (auto it = j.find("tls_cert"); it != j.end() && !it->is_null())
    e.tls_cert = it->get<std::string>();
}

void to_json(nlohmann::json& j, const Endpoint& e) {
  j = nlohmann::json{{"host", e.host}, {"port", e.port}};
  if (e.tls_cert) j["tls_cert"] = *e.tls_cert;
}

void from_json(const nlohmann::json& j, Config& c) {
  j.at("name").get_to(c.name);
  j.at("endpoints").get_to(c.endpoints);
  c.limits = j.value("limits", std::map<std::string, double>{});
  c.timeout = std::chrono::milliseconds(j.value("timeout_ms", 1000));
}

std::string report(const Config& c) {
  std::vector<std::string> hosts;
  for (const Endpoint& e : c.endpoints)
    hosts.push_back(fmt::format("{}:{}{}", e.host, e.port, e.tls_cert ? " (tls)" : ""));
  return fmt::format("{}: {} endpoints {}, timeout {}, limits {}", c.name, c.endpoints.size(),
                     hosts, c.timeout, c.limits);
}

}  // namespace svc

int main(int argc, char** argv) {
  const char* text = R"({"name": "ingest", "timeout_ms": 250,
    "endpoints": [{"host": "a.local", "port": 8443, "tls_cert": "a.pem"},
                  {"host": "b.local", "port": 8080, "tls_cert": null}],
    "limits": {"qps": 1200.5, "burst": 64}})";
  try {
    nlohmann::json j = nlohmann::json::parse(argc > 1 ? argv[1] : text);
    svc::Config c = j.get<svc::Config>();
    fmt::print("{}\n", svc::report(c));
    nlohmann::json back = c.endpoints;
    fmt::print("{}\n", back.dump(2));
  } catch (const nlohmann::json::exception& e) {
    fmt::print(stderr, "bad config: {} (id {})\n", e.what(), e.id);
    return 1;
  }
  return 0;
}
