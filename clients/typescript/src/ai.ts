/**
 * Handover memory as Vercel AI SDK tools (`ai` ≥ 5, a peer dependency):
 *
 *     import { generateText, stepCountIs } from "ai";
 *     import { memoryTools } from "handover-client/ai";
 *     const tools = memoryTools(hv, { agent: "demo", user: "priya" });
 *     await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "My budget?" });
 *
 * API errors come back to the model as the tool's answer (`Memory error invalid: …`), never
 * as a failed step.
 */

import { jsonSchema, tool } from "ai";
import { APIError, NotFoundError } from "./errors.js";
import { searchResultText } from "./index.js";
import type { Handover } from "./index.js";

function answer(error: unknown): string {
  if (error instanceof APIError) return `Memory error ${error.code}: ${error.detail}`;
  return `Memory unavailable: ${String(error)}`;
}

export function memoryTools(hv: Handover, scope: { agent: string; user: string }) {
  const { agent, user } = scope;
  return {
    search_memory: tool({
      description:
        "Search long-term memory about this user: earlier conversations and facts not in the " +
        "context. Use the user's words plus any names, places, dates or numbers.",
      inputSchema: jsonSchema<{ query: string; k?: number }>({
        type: "object",
        properties: { query: { type: "string" }, k: { type: "integer", minimum: 1, maximum: 20 } },
        required: ["query"],
        additionalProperties: false,
      }),
      execute: async ({ query, k }) => {
        try {
          return searchResultText(await hv.search(user, query, { agent, k: k ?? 5 }));
        } catch (error) {
          if (error instanceof NotFoundError && error.code === "user_not_found") {
            return "No memory found for this query."; // a user Handover has not met yet
          }
          return answer(error);
        }
      },
    }),
    remember_fact: tool({
      description:
        "Remember a fact the user stated about themselves. `key` is a field of the agent's " +
        "schema (e.g. city, budget) or field:qualifier (pet:Max); `value` is text for text " +
        "fields, a number for numbers and money, YYYY-MM-DD for dates.",
      inputSchema: jsonSchema<{ key: string; value: string | number | boolean }>({
        type: "object",
        properties: { key: { type: "string" }, value: { type: ["string", "number", "boolean"] } },
        required: ["key", "value"],
        additionalProperties: false,
      }),
      execute: async ({ key, value }) => {
        try {
          const entity = await hv.writeFact(user, key, value, { agent });
          return entity.created
            ? `Remembered ${entity.key}: ${entity.value_text}.`
            : `Already known: ${entity.key} is ${entity.value_text}.`;
        } catch (error) {
          return answer(error);
        }
      },
    }),
  };
}
