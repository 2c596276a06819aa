/**
 * The error code of a failed connection (ECONNRESET, ...), wherever the HTTP stack put it: n8n 2.x nests the
 * client's error as `cause` with a `code`, n8n 1.x keeps the code as the wrapping error's `httpCode`.
 */
export function connectionErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		const { code, httpCode } = current as { code?: unknown; httpCode?: unknown };
		for (const candidate of [code, httpCode]) {
			if (typeof candidate === 'string' && /^(E[A-Z_]+|UND_ERR\w*)$/.test(candidate)) return candidate;
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

const PROBLEMS: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ECONNRESET: 'the connection was reset',
	EPIPE: 'the connection was closed while sending',
	ECONNABORTED: 'the request timed out',
	ETIMEDOUT: 'the request timed out',
	UND_ERR_HEADERS_TIMEOUT: 'the request timed out',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be looked up',
	EHOSTUNREACH: 'the host is unreachable',
	ENETUNREACH: 'the network is unreachable',
};

/**
 * A connection failure in words. The raw code is deliberately left out: n8n replaces any error message that
 * contains one (ECONNRESET, ...) with a generic text, which would hide which file or address failed.
 */
export function connectionProblem(code: string | undefined): string {
	return (code && PROBLEMS[code]) ?? 'the connection failed';
}
