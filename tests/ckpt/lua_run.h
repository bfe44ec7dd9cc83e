/*
 * lua_run: the interpreter the Lua programs of the checkpoint suites
 * share (tests/ckpt/lua_run.c, compiled into each).
 */
#ifndef LUA_RUN_H
#define LUA_RUN_H

/* Run the Lua chunk SCRIPT, then print "lua done"; 0, or 1 on an error. */
int	lua_run(const char *script);

#endif
