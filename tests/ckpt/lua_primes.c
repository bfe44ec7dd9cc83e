/*
 * lua_primes: a Lua 5.4 interpreter (Debian's liblua5.4.a) running a
 * script that builds a table of the first 250,000 primes by trial
 * division, writing each to primes.txt and a line per 25,000 to
 * stdout.  The table grows by doubling (luaH_resize: realloc of large
 * blocks), so a restart that does not give back memory the allocator
 * can grow shows here.
 */
#include "lua_run.h"

static const char script[] =
"local out = assert(io.open('primes.txt', 'w'))\n"
"local primes, n, sum = {}, 2, 0\n"
"while #primes < 250000 do\n"
"  local prime = true\n"
"  for i = 1, #primes do\n"
"    local p = primes[i]\n"
"    if p * p > n then break end\n"
"    if n % p == 0 then prime = false; break end\n"
"  end\n"
"  if prime then\n"
"    primes[#primes + 1] = n\n"
"    sum = sum + n\n"
"    out:write(n, '\\n')\n"
"    if #primes % 25000 == 0 then\n"
"      print(string.format('%d primes, the last %d, sum %d', #primes, n, sum))\n"
"    end\n"
"  end\n"
"  n = n + 1\n"
"end\n"
"out:close()\n"
"local copy = {}\n"
"for i = #primes, 1, -1 do copy[#copy + 1] = primes[i] end\n"
"print(string.format('table of %d, first %d, last %d', #copy, copy[#copy], copy[1]))\n";

int
main(void)
{
	return lua_run(script);
}
