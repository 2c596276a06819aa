import type { IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';

import { executionScoped } from '../../shared/executionScope';
import { isResourceLocator } from '../helpers/values';

function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * The keys an expression of the form `={{ $json.a.b }}` or `={{ $json["a b"][0] }}` reads from the item, or
 * undefined for any other expression. Mapping a column is by far the most common expression, and n8n evaluates each
 * in its expression sandbox (about 2 ms each in n8n 1.123), where reading the item's field gives the same value.
 */
export function jsonPathOf(value: unknown): string[] | undefined {
	if (typeof value !== 'string') return undefined;
	const body = /^=\{\{\s*\$json((?:\.[A-Za-z_$][\w$]*|\[\s*(?:'[^'\\]*'|"[^"\\]*"|\d+)\s*\])+)\s*\}\}$/.exec(
		value,
	)?.[1];
	if (body === undefined) return undefined;
	return [...body.matchAll(/\.([A-Za-z_$][\w$]*)|\[\s*(?:'([^']*)'|"([^"]*)"|(\d+))\s*\]/g)].map(
		(match) => match[1] ?? match[2] ?? match[3] ?? match[4],
	);
}

function valueAt(json: unknown, path: string[]): unknown {
	let current = json;
	for (const key of path) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}

/**
 * The node's parameters, read the cheap way. Reading a parameter costs n8n real work even when it holds a fixed value
 * (resolving it, copying it), and a run reads several per item. A parameter whose saved value holds no expression —
 * the node's raw parameters tell — is the same for every item, so it is read once per run; one that holds an
 * expression is read for the item that asks. Values read once are shared by every item: never change them.
 */
export class RunParameters {
	private readonly fixed = new Map<string, unknown>();

	private readonly perItem = new Map<string, boolean>();

	private readonly jsonPaths = new Map<string, string[] | undefined>();

	constructor(private readonly context: IExecuteFunctions) {}

	get(name: string, itemIndex: number, fallback?: unknown, options?: IGetNodeParameterOptions): unknown {
		const fromItem = this.fromItem(name, itemIndex, options);
		if (fromItem !== undefined) return fromItem;
		const topLevel = name.split('.')[0];
		let variesPerItem = this.perItem.get(topLevel);
		if (variesPerItem === undefined) {
			variesPerItem = holdsExpression(this.context.getNode().parameters[topLevel]);
			this.perItem.set(topLevel, variesPerItem);
		}
		if (variesPerItem) return this.context.getNodeParameter(name, itemIndex, fallback, options);
		const key = `${name}\u0000${options?.extractValue === true}\u0000${JSON.stringify(fallback)}`;
		if (!this.fixed.has(key)) this.fixed.set(key, this.context.getNodeParameter(name, itemIndex, fallback, options));
		return this.fixed.get(key);
	}

	/**
	 * A top-level parameter that only maps an item's field (`={{ $json.sku }}`, also as a resource locator's value)
	 * read straight from the item, when that field holds a value; anything else (a missing field included) is left
	 * to n8n, so that every result is the one n8n would give.
	 */
	private fromItem(name: string, itemIndex: number, options?: IGetNodeParameterOptions): unknown {
		if (!this.jsonPaths.has(name)) {
			const raw = name.includes('.') ? undefined : this.context.getNode().parameters[name];
			const mapped = isResourceLocator(raw) ? (options?.extractValue ? raw.value : undefined) : raw;
			this.jsonPaths.set(name, jsonPathOf(mapped));
		}
		const path = this.jsonPaths.get(name);
		if (path === undefined) return undefined;
		const value = valueAt(this.context.getInputData()[itemIndex]?.json, path);
		return value === null ? undefined : value;
	}
}

const runs = executionScoped<RunParameters>();

/** The parameters of the current run of the node. */
export function runParameters(context: IExecuteFunctions): RunParameters {
	return runs.of(context, () => new RunParameters(context));
}
