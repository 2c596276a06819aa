import type { IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';

import { executionScoped } from './executionScope';

function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
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

	constructor(private readonly context: IExecuteFunctions) {}

	get(name: string, itemIndex: number, fallback?: unknown, options?: IGetNodeParameterOptions): unknown {
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
}

const runs = executionScoped<RunParameters>();

/** The parameters of the current run of the node. */
export function runParameters(context: IExecuteFunctions): RunParameters {
	return runs.of(context, () => new RunParameters(context));
}
