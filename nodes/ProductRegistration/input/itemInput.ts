import type { IDataObject, IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { modelArgumentAt, runsAsTool } from './asTool';
import { runParameters } from './runParameters';
import { InvalidValueError } from '../helpers/values';

/**
 * What one input item gives an operation. Every value is read through a converter, and a value that cannot be
 * used becomes a NodeOperationError naming the field (as the editor shows it) and the item — or, when a model called
 * the node as a tool, the argument the model filled it with: the model sent one item and knows no field labels.
 */
export class ItemInput {
	constructor(
		readonly context: IExecuteFunctions,
		readonly itemIndex: number,
	) {}

	/** A parameter's value for this item, as n8n resolves it. */
	raw(name: string, fallback?: unknown, options?: IGetNodeParameterOptions): unknown {
		return runParameters(this.context).get(name, this.itemIndex, fallback, options);
	}

	/** A top-level parameter of this item, converted. */
	parameter<T>(name: string, label: string, convert: (value: unknown) => T, options?: IGetNodeParameterOptions): T {
		return this.convert(this.raw(name, undefined, options), label, convert, name);
	}

	/** A collection parameter (additionalFields, options, ...) of this item; `{}` when nothing is set. */
	collection(name: string): IDataObject {
		const value = this.raw(name, {});
		return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : {};
	}

	/**
	 * A value already read (e.g. from a collection), converted. `path` says which parameter it was read from
	 * (`filters.email`), so that a model is told the argument it filled it with.
	 */
	convert<T>(value: unknown, label: string, convert: (value: unknown) => T, path?: string): T {
		try {
			return convert(value);
		} catch (error) {
			if (error instanceof InvalidValueError) throw this.error(`${this.valueNamed(label, path)} ${error.message}`);
			throw new NodeOperationError(this.context.getNode(), error as Error, { itemIndex: this.itemIndex });
		}
	}

	/** Whether a model called the node as a tool (see asTool.ts). */
	get asTool(): boolean {
		return runsAsTool(this.context.getNode());
	}

	/** "The Limit of item 2", or for a model "The argument Limit" (or "The Limit" when no argument fills it). */
	private valueNamed(label: string, path: string | undefined): string {
		if (!this.asTool) return `The ${label} of item ${this.itemIndex}`;
		const argument = path === undefined ? undefined : modelArgumentAt(this.context.getNode(), path);
		return argument === undefined ? `The ${label}` : `The argument ${argument}`;
	}

	error(message: string): NodeOperationError {
		return new NodeOperationError(this.context.getNode(), message, { itemIndex: this.itemIndex });
	}
}
