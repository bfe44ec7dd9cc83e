/*
 * lua_run: a Lua 5.4 interpreter (Debian's liblua5.4.a) with the
 * standard libraries, running one script.
 */
#include <stdio.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "lua_run.h"

int
lua_run(const char *script)
{
	lua_State *L = luaL_newstate();

	if (L == NULL)
		return 1;
	luaL_openlibs(L);
	if (luaL_dostring(L, script) != LUA_OK) {
		fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
		return 1;
	}
	lua_close(L);
	printf("lua done\n");
	return 0;
}
