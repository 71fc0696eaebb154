-- Counts the answers by status across wrk's threads, printed as "status <code> <count>" lines.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  counts = {}
end

function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do
      total[status] = (total[status] or 0) + n
    end
  end
  for status, n in pairs(total) do
    io.write(string.format("status %d %d\n", status, n))
  end
end
