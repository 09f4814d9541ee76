import { assertEquals } from "../helpers/assert.ts";
import { parseWrkOutput } from "../../bench/wrk.ts";

const SAMPLE = `Running 5s test @ http://127.0.0.1:4000/v1/chat/completions
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.10ms  510.00us  12.00ms   90.00%
    Req/Sec     7.50k   300.00     8.00k    70.00%
  Latency Distribution
     50%  850.00us
     75%    2.20ms
     90%    2.60ms
     99%    1.20s
  74612 requests in 5.00s, 30.10MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  14922.31
Transfer/sec:      6.02MB
`;

Deno.test("parseWrkOutput reads throughput, percentiles in every unit and errors", () => {
  assertEquals(parseWrkOutput(SAMPLE), {
    rps: 14922.31,
    requests: 74612,
    errors: 7,
    p50_ms: 0.85,
    p99_ms: 1200,
  });
});
