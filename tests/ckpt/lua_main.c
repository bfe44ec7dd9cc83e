/*
 * lua_main: a Lua 5.4 interpreter (Debian's liblua5.4.a, nobody here wrote
 * it) running a CPU-bound script: sieves, table churn, string building
 * and hashing, with the garbage collector busy.  Prints results only.
 */
#include "lua_run.h"

static const char script[] =
"local function primes(n)\n"
"  local sieve, count = {}, 0\n"
"  for i = 2, n do\n"
"    if not sieve[i] then\n"
"      count = count + 1\n"
"      for j = i * i, n, i do sieve[j] = true end\n"
"    end\n"
"  end\n"
"  return count\n"
"end\n"
"local keep = {}\n"
"for round = 1, 26 do\n"
"  local c = primes(150000 + round * 1000)\n"
"  local parts = {}\n"
"  for i = 1, 15000 do\n"
"    parts[#parts + 1] = string.format('%x', (i * round * 2654435761) % 4294967296)\n"
"  end\n"
"  local s = table.concat(parts, ',')\n"
"  local h = 0\n"
"  for i = 1, #s, 3 do h = (h * 31 + s:byte(i)) % 2147483647 end\n"
"  keep[round] = s:sub(1, 64)\n"
"  local t = {}\n"
"  for i = 1, 20000 do t[i] = { i, tostring(i * round) } end\n"
"  table.sort(t, function(a, b) return a[2] < b[2] end)\n"
"  print(string.format('round %2d primes %d hash %d first %s', round, c, h, t[1][2]))\n"
"end\n"
"print('kept ' .. table.concat(keep, ';'):len() .. ' bytes, gc ' .. (collectgarbage('count') > 0 and 'ok' or 'odd'))\n";

int
main(void)
{
	return lua_run(script);
}
