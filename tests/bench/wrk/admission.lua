-- wrk script: cycles through the AdmissionReviews in the directory given as the first script
-- argument (made by tests/bench/wrk/run.sh), POSTing each to /mutate on a kept-alive connection.
--   wrk -t1 -c64 -d20s -s tests/bench/wrk/admission.lua https://127.0.0.1:8443 -- DIR
local bodies = {}
local counter = 0

function init(args)
  local dir = args[1]
  local p = io.popen('ls "' .. dir .. '"/*.json')
  for file in p:lines() do
    local f = io.open(file, "r")
    bodies[#bodies + 1] = f:read("*a")
    f:close()
  end
  p:close()
  if #bodies == 0 then error("no AdmissionReviews in " .. tostring(dir)) end
end

function request()
  counter = counter + 1
  local body = bodies[(counter % #bodies) + 1]
  return wrk.format("POST", "/mutate", {["Content-Type"] = "application/json"}, body)
end

function done(summary, latency, requests)
  io.write(string.format("wrk: %d requests, %d errors (status %d), p50 %d us, p90 %d us, p99 %d us, max %d us\n",
    summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout, summary.errors.status, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max))
end
