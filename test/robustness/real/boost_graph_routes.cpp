// Route planning with the Boost Graph Library: a weighted road graph read
// from "a-b:w" tokens (Boost.StringAlgo, Boost.LexicalCast), Dijkstra's
// shortest paths, and the path printed back. No kernel: dmalint must stay
// silent.
#include <boost/algorithm/string.hpp>
#include <boost/container/flat_map.hpp>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/lexical_cast.hpp>
#include <boost/optional.hpp>

#include <iostream>
#include <string>
#include <vector>

namespace routes {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                    boost::no_property, boost::property<boost::edge_weight_t, int>>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

class Network {
 public:
  Vertex city(const std::string& name) {
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    Vertex v = boost::add_vertex(g_);
    ids_.emplace(name, v);
    names_.push_back(name);
    return v;
  }

  void parse(const std::string& spec) {
    std::vector<std::string> tokens;
    boost::split(tokens, spec, boost::is_any_of(" ,"), boost::token_compress_on);
    for (std::string& t : tokens) {
      boost::trim(t);
      std::vector<std::string> parts;
      boost::split(parts, t, boost::is_any_of("-:"));
      if (parts.size() != 3) continue;
      boost::add_edge(city(parts[0]), city(parts[1]), boost::lexical_cast<int>(parts[2]), g_);
    }
  }

  boost::optional<std::vector<std::string>> route(const std::string& from,
                                                  const std::string& to) const {
    auto a = ids_.find(from), b = ids_.find(to);
    if (a == ids_.end() || b == ids_.end()) return boost::none;
    std::vector<Vertex> pred(boost::num_vertices(g_));
    std::vector<int> dist(boost::num_vertices(g_));
    boost::dijkstra_shortest_paths(
        g_, a->second,
        boost::predecessor_map(pred.data()).distance_map(dist.data()));
    std::vector<std::string> path;
    for (Vertex v = b->second; v != a->second; v = pred[v]) {
      if (pred[v] == v) return boost::none;  // unreachable
      path.push_back(names_[v]);
    }
    path.push_back(from);
    return std::vector<std::string>(path.rbegin(), path.rend());
  }

 private:
  Graph g_;
  boost::container::flat_map<std::string, Vertex> ids_;
  std::vector<std::string> names_;
};

}  // namespace routes

int main() {
  routes::Network net;
  net.parse("lyon-paris:465, paris-lille:225, lyon-geneva:150, geneva-basel:250, "
            "basel-strasbourg:140, strasbourg-paris:490, lille-brussels:110");
  if (auto path = net.route("geneva", "brussels"))
    std::cout << boost::algorithm::join(*path, " -> ") << "\n";
  return 0;
}
