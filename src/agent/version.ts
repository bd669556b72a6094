import { BUILD_INFO } from "../build_info/mod.ts";

/** The agent's version, from deno.json (the commit is in BUILD_INFO). */
export const VERSION: string = BUILD_INFO.version;
