import type { IDataObject, IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runParameters } from './runParameters';
import { InvalidValueError } from './values';

/**
 * What one input item gives an operation. Every value is read through a converter, and a value that cannot be
 * used becomes a NodeOperationError naming the field (as the editor shows it) and the item.
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
		return this.convert(this.raw(name, undefined, options), label, convert);
	}

	/** A collection parameter (additionalFields, options, ...) of this item; `{}` when nothing is set. */
	collection(name: string): IDataObject {
		const value = this.raw(name, {});
		return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : {};
	}

	/** A value already read (e.g. from a collection), converted. */
	convert<T>(value: unknown, label: string, convert: (value: unknown) => T): T {
		try {
			return convert(value);
		} catch (error) {
			if (error instanceof InvalidValueError)
				throw this.error(`The ${label} of item ${this.itemIndex} ${error.message}`);
			throw new NodeOperationError(this.context.getNode(), error as Error, { itemIndex: this.itemIndex });
		}
	}

	error(message: string): NodeOperationError {
		return new NodeOperationError(this.context.getNode(), message, { itemIndex: this.itemIndex });
	}
}
