import type { IDataObject, IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { modelArgumentAt, runsAsTool } from './asTool';
import { runParameters } from './runParameters';
import { InvalidValueError } from '../helpers/values';

/**
 * How every message about one input item names it, as n8n's own nodes and n8n-core do ("The item has no binary field
 * 'data' [item 0]", "Invalid input for 'Limit' [item 2]"): what is wrong first, the field in single quotes, and the
 * item, counted from 0, last. The error carries the item's index too, so n8n links it to the item.
 */
export function forItem(message: string, itemIndex: number): string {
	return `${message} [item ${itemIndex}]`;
}

/**
 * What one input item gives an operation. Every value is read through a converter, and a value that cannot be
 * used becomes a NodeOperationError naming the field (as the editor shows it) and the item (forItem) — or, when a
 * model called the node as a tool, the argument the model filled it with: the model sent one item and knows no field
 * labels.
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
	 * A value already read (e.g. from a collection), converted. `label` names it as the editor shows it, its display
	 * name in single quotes (`'Customer Email' filter`); `path` says which parameter it was read from
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

	/** "The 'Limit'", or for a model "The argument Limit" (or "The 'Limit'" when no argument fills it). */
	private valueNamed(label: string, path: string | undefined): string {
		const argument = this.asTool && path !== undefined ? modelArgumentAt(this.context.getNode(), path) : undefined;
		return argument === undefined ? `The ${label}` : `The argument ${argument}`;
	}

	/** An error of this item: the message names the item as n8n's nodes do (forItem); a model's call has one item. */
	error(message: string): NodeOperationError {
		return new NodeOperationError(this.context.getNode(), this.asTool ? message : forItem(message, this.itemIndex), {
			itemIndex: this.itemIndex,
		});
	}
}
