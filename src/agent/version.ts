import denoJson from "../../deno.json" with { type: "json" };

/** The agent's version, from deno.json. */
export const VERSION: string = denoJson.version;
