/** Resource not found: the code the MCP spec gives `resources/read` of an unknown URI. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error the SDK passes on as it is: its `code`, its `message`
 * (without the "MCP error -32602:" prefix `McpError` adds) and `data`.
 */
export function rpcError(code: number, message: string, data?: Record<string, unknown>): Error & { code: number; data?: unknown } {
  return Object.assign(new Error(message.replace(/\s*\n\s*/g, ' ')), { code, ...(data ? { data } : {}) });
}
