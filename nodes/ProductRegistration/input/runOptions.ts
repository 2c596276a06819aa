import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { wholeNumber } from '../helpers/values';
import type { RequestFor } from '../../shared/transport/serviceRequest';
import { DEFAULT_REQUEST_POLICY, MAX_RETRIES } from '../../shared/transport/serviceRequest';
import { ItemInput } from './itemInput';
import { runParameters } from './runParameters';

/**
 * A run's Options, read here and nowhere else, and handed down as plain values: Concurrency, Batch Size and If Already
 * Registered once for the run (from item 0, since they shape how every item is sent); Retries, Retry Wait and Timeout
 * for each item that sends a request, since an expression may give items different ones.
 */

/** Items in flight at once for operations that send one request per item (the service's pace may allow fewer). */
export const DEFAULT_CONCURRENCY = 50;
export const MAX_CONCURRENCY = 100;
/** Batches of a create in flight at once: each carries up to Batch Size records, so fewer than single requests. */
export const DEFAULT_BATCH_CONCURRENCY = 4;
/**
 * The API takes many records in one POST, and the most it takes is not known (docs/service.md, Not known); 100, the
 * most the service lists in a page, keeps each request modest.
 */
export const DEFAULT_BATCH_SIZE = 100;
export const MAX_BATCH_SIZE = 1000;

/** If Already Registered (Registration → Create), by the value saved in workflows. */
export const CREATE_ANYWAY = 'create';
export const SKIP = 'skip';
export const UPDATE = 'update';
export type IfAlreadyRegistered = typeof CREATE_ANYWAY | typeof SKIP | typeof UPDATE;

function readWholeNumber(context: IExecuteFunctions, name: string, label: string, fallback: number, max: number) {
	const value = runParameters(context).get(`options.${name}`, 0, fallback);
	return new ItemInput(context, 0).convert(value, `'${label}' option`, wholeNumber(1, max));
}

export function readConcurrency(context: IExecuteFunctions, fallback: number): number {
	return readWholeNumber(context, 'concurrency', 'Concurrency', fallback, MAX_CONCURRENCY);
}

export function readBatchSize(context: IExecuteFunctions): number {
	return readWholeNumber(context, 'batchSize', 'Batch Size', DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE);
}

export function readIfAlreadyRegistered(context: IExecuteFunctions): IfAlreadyRegistered {
	return runParameters(context).get('options.ifExists', 0, CREATE_ANYWAY) as IfAlreadyRegistered;
}

/** A request of this item, with its Retries, Retry Wait and Timeout. */
export function requestFor(context: IExecuteFunctions, itemIndex: number): RequestFor {
	const options = (runParameters(context).get('options', itemIndex, {}) ?? {}) as IDataObject;
	const input = new ItemInput(context, itemIndex);
	const read = (name: string, label: string, fallback: number, min: number, max: number) =>
		input.convert(options[name] ?? fallback, `'${label}' option`, wholeNumber(min, max));
	return {
		itemIndex,
		policy: {
			maxRetries: read('maxRetries', 'Retries', DEFAULT_REQUEST_POLICY.maxRetries, 0, MAX_RETRIES),
			retryDelayMs: read('retryDelay', 'Retry Wait', DEFAULT_REQUEST_POLICY.retryDelayMs, 0, 600_000),
			timeoutMs: read('timeout', 'Timeout', DEFAULT_REQUEST_POLICY.timeoutMs, 1, 3_600_000),
		},
	};
}
