import type { INode } from 'n8n-workflow';

import { isResourceLocator } from '../helpers/values';

/**
 * Whether n8n runs the node as an AI tool, for an AI Agent or an MCP Server Trigger. n8n gives every node type that is
 * `usableAsTool` a second type named `<type>Tool` and runs that one as the tool (n8n 1.123: packages/cli
 * load-nodes-and-credentials.ts, convertNodeToAiTool; n8n 2.40: packages/cli tool-generation/ai-tools.ts); the
 * editor's `@tool` display option is true for exactly those types (n8n-workflow node-helpers.ts, getPropertyValues).
 */
export function runsAsTool(node: Pick<INode, 'type'>): boolean {
	return node.type.endsWith('Tool');
}

const FROM_AI_CALL = /\$fromAI\s*\(\s*(['"`])([A-Za-z0-9_-]{1,64})\1/gi;

/**
 * The argument a model fills a parameter with: the key of the one `$fromAI(key, ...)` call its saved value holds (a
 * resource locator's value included), as n8n's editor writes it ("let the model define this parameter"). Undefined
 * for any other value, or one that combines several arguments.
 */
export function modelArgumentOf(saved: unknown): string | undefined {
	const value = isResourceLocator(saved) ? saved.value : saved;
	if (typeof value !== 'string' || !value.startsWith('=')) return undefined;
	const calls = [...value.matchAll(FROM_AI_CALL)];
	return calls.length === 1 ? calls[0][2] : undefined;
}

/** The argument a model fills the parameter at `path` (e.g. `limit`, `filters.email`) with, if any. */
export function modelArgumentAt(node: Pick<INode, 'parameters'>, path: string): string | undefined {
	let value: unknown = node.parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return modelArgumentOf(value);
}
