-- wrk: each request carries the headers of the next line of the file named after `--` (a line
-- holds tab-separated "Name: value" pairs), so a file of one line asks the same thing every
-- time and one of 1,000 lines rotates; requests are built once, so both cost wrk alike.
local threads = 0

function setup(thread)
  thread:set("first", threads)
  threads = threads + 1
end

function init(args)
  requests = {}
  for line in io.lines(args[1]) do
    local headers = {}
    for name, value in line:gmatch("([^\t:]+): ([^\t]+)") do
      headers[name] = value
    end
    requests[#requests + 1] = wrk.format(nil, nil, headers)
  end
  -- harness.wrk runs two threads: the second starts half way round.
  position = math.floor(first * #requests / 2)
end

function request()
  position = position % #requests + 1
  return requests[position]
end
