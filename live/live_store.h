// The live cluster held in memory as the webhook's workload metrics need it (controllers/workload_demand.h): every
// object of the catalog's kinds, every pod and every gang object, each kept as little JSON as its use needs, indexed
// by its owner, so that a change to any of them names the one workload it is part of, and that workload alone is made
// again (a Snapshot of its own, read by live_workloads, as `get` reads the whole cluster). Nothing here talks to the
// API server: the controller feeds it what its watches see.
#pragma once

#include <simdjson.h>

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "live/snapshot.h"
#include "mapper/catalog/catalog.h"

namespace wm::live {

enum class LiveRole { Object, Pod, Gang };  // of the catalog's kinds; a pod; a scheduler's gang object

// What is kept of a pod that a workload's object controls: only what counting it needs (its owners, node, phase and
// PodScheduled condition), about a tenth of it. A pod that may be a workload of its own (no controller, or one of a
// kind the catalog does not know) keeps all but its managedFields and container statuses: the view reads its spec.
std::string pod_as_kept(simdjson::dom::element pod, const catalog::Catalog& catalog);

// What is kept of an object of the catalog's kinds, or of a gang object: all that a definition or a gangStatus may
// read, not its managedFields nor kubectl's last-applied-configuration annotation (each often as large as its spec).
std::string object_as_kept(simdjson::dom::element object);

class LiveStore {
 public:
  // Holds `kept` (an object's JSON, as pod_as_kept or the watch keeps it) under its uid, replacing what was there; adds
  // to `touched` the uids of the workloads it was and is part of, and of the objects it owns (which may have been
  // workloads of their own until it came). Returns its uid; an object without one is ignored ("").
  std::string put(LiveRole role, std::string_view api_version, std::string_view kind, std::string kept,
                  const catalog::Catalog& catalog, std::set<std::string>& touched);
  void remove(const std::string& uid, const catalog::Catalog& catalog, std::set<std::string>& touched);
  // After a relist of one kind (its group and kind): what is held of it and is not in `uids` is removed.
  void keep_only(std::string_view group, std::string_view kind, const std::set<std::string>& uids,
                 const catalog::Catalog& catalog, std::set<std::string>& touched);

  // The uid of the workload `uid` is part of ("" when it is held by none, or is a gang object).
  std::string workload_of(const std::string& uid, const catalog::Catalog& catalog) const;
  bool is_workload(const std::string& uid, const catalog::Catalog& catalog) const;
  // The workload `uid` with every object, pod and gang object that is part of it, as a Snapshot of its own.
  Snapshot snapshot_of(const std::string& uid, const catalog::Catalog& catalog) const;
  // Every uid that may be a workload (objects and pods without a held owner they are part of).
  std::vector<std::string> workloads(const catalog::Catalog& catalog) const;

  struct Counts {
    size_t objects = 0, pods = 0, gangs = 0, bytes = 0;  // bytes: of the kept JSON
  };
  Counts counts() const;

 private:
  // Held per object, 90,000 of them at 10,000 workloads: what repeats (kinds, API versions) is held once, in names_.
  struct Entry {
    LiveRole role;
    const std::string *api_version, *kind;
    const std::string *owner_api_version = nullptr, *owner_kind = nullptr;  // its controller's (or a stand-in's pod's)
    std::string owner_uid;
    std::string json;
    std::vector<std::string> gang_owners;  // a gang object: every owner's uid
  };
  const std::string* name(std::string_view text);
  // The uid of the object `entry` (held as `uid`) is part of, as ownership.cpp decides it; null for none.
  const std::string* parent_of(const std::string& uid, const Entry& entry, const catalog::Catalog& catalog) const;
  void touch_around(const std::string& uid, const catalog::Catalog& catalog, std::set<std::string>& touched) const;
  void unlink(const std::string& uid, const Entry& entry);
  void link(const std::string& uid, const Entry& entry);

  simdjson::dom::parser parser_;
  std::unordered_map<std::string, Entry> entries_;  // by uid
  // Owner uid -> the uids (entries_' keys, which stay put while their entry lives) of what it owns.
  std::unordered_map<std::string, std::vector<const std::string*>> owned_, gangs_of_;
  std::set<std::string, std::less<>> names_;
};

}  // namespace wm::live
