#include "live/live_json.h"

#include "base/json/json_writer.h"
#include "mapper/view/view_json.h"

namespace wm::live {

namespace {

void strings(json::JsonWriter& out, std::string_view name, const std::vector<std::string>& list) {
  out.key(name).begin_array();
  for (const auto& s : list) out.value(s);
  out.end_array();
}

void row_fields(json::JsonWriter& out, const LiveWorkload& w) {
  out.field("apiVersion", w.api_version).field("kind", w.kind).field("namespace", w.namespace_name);
  out.field("name", w.name).field("phase", w.phase);
  strings(out, "definitionPhases", w.view.phases);
  out.key("pods").begin_object().field("expected", w.pods.expected).field("existing", w.pods.existing);
  out.field("scheduled", w.pods.scheduled).field("running", w.pods.running).end_object();
  out.field("gpus", w.gpus).key("requests").raw(view::resources_json(w.view.total_requests));
  out.field("scheduler", w.scheduler).field("queue", w.queue).field("profile", w.profile);
  out.key("gang").begin_object().field("minimum", w.gang_minimum).field("summary", gang_summary(w));
  out.key("objects").begin_array();
  for (const auto& g : w.gangs) {
    out.begin_object().field("apiVersion", g.api_version).field("kind", g.kind).field("name", g.name);
    out.field("state", g.state);
    out.field("waiting", g.waiting);
    if (g.min_member) out.field("minMember", *g.min_member);
    strings(out, "reasons", g.reasons);
    out.end_object();
  }
  out.end_array().end_object();
}

}  // namespace

std::string workloads_json(const std::vector<LiveWorkload>& workloads, const std::vector<std::string>& notes) {
  json::JsonWriter out;
  out.begin_object().key("items").begin_array();
  for (const auto& w : workloads) {
    out.begin_object();
    row_fields(out, w);
    out.end_object();
  }
  out.end_array();
  strings(out, "notes", notes);
  out.end_object();
  return out.take();
}

std::string workload_detail_json(const LiveWorkload& w, const std::vector<Reason>& why) {
  json::JsonWriter out;
  out.begin_object();
  row_fields(out, w);
  if (w.view.definition) out.key("view").raw(view::view_json(w.view));
  out.key("podList").begin_array();
  for (const auto& p : w.pod_list) {
    out.begin_object().field("name", p.name).field("phase", p.phase).field("node", p.node).field("owner", p.owner);
    out.field("waiting", p.waiting).field("standIn", p.stand_in).end_object();
  }
  out.end_array().key("why").begin_array();
  for (const auto& r : why) out.begin_object().field("source", r.source).field("text", r.text).end_object();
  out.end_array().end_object();
  return out.take();
}

}  // namespace wm::live
