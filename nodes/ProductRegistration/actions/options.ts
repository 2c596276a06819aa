import type { INodeProperties } from 'n8n-workflow';

import { optionsHolding } from '../../shared/optionsCollection';
import { DEFAULT_REQUEST_POLICY, MAX_RETRIES } from '../../shared/transport/serviceRequest';
import {
	DEFAULT_BATCH_CONCURRENCY,
	DEFAULT_BATCH_SIZE,
	DEFAULT_CONCURRENCY,
	MAX_BATCH_SIZE,
	MAX_CONCURRENCY,
} from '../input/runOptions';

const {
	maxRetries: DEFAULT_RETRIES,
	retryDelayMs: DEFAULT_RETRY_WAIT_MS,
	timeoutMs: DEFAULT_TIMEOUT_MS,
} = DEFAULT_REQUEST_POLICY;

/** A duration in milliseconds in words, e.g. "30 seconds". */
function inSeconds(milliseconds: number): string {
	const seconds = milliseconds / 1000;
	return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** How requests to the service behave; every operation offers these under Options. */
const requestOptionProperties: INodeProperties[] = [
	{
		displayName: 'Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: MAX_RETRIES },
		default: DEFAULT_RETRIES,
		description: `How often to repeat a request that failed for a passing reason (HTTP 502 to 504, a lost connection, the Timeout). A create is repeated only when the service cannot have acted on it. Defaults to ${DEFAULT_RETRIES}.`,
	},
	{
		displayName: 'Retry Wait',
		name: 'retryDelay',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_RETRY_WAIT_MS,
		description: `Milliseconds to wait before the first repeat, doubled for each further one (at most 30 seconds). A refusal for the rate (429) waits as long as the service asks instead. Defaults to ${DEFAULT_RETRY_WAIT_MS} (${inSeconds(DEFAULT_RETRY_WAIT_MS)}).`,
	},
	{
		displayName: 'Timeout',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_TIMEOUT_MS,
		description: `Milliseconds one request may take as a whole, from connecting to the last byte of the answer (a file upload to the storage: without a byte moving). Defaults to ${DEFAULT_TIMEOUT_MS} (${inSeconds(DEFAULT_TIMEOUT_MS)}).`,
	},
];

function concurrencyProperty(howMany: string, defaultConcurrency: number): INodeProperties {
	return {
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: defaultConcurrency,
		description: `${howMany} at once. Output order and item links are kept; a run starts with one request at a time and keeps to the pace the service allows. Defaults to ${defaultConcurrency}.`,
	};
}

export const concurrencyOption = concurrencyProperty(
	'How many items to process, each with its own request,',
	DEFAULT_CONCURRENCY,
);
export const batchConcurrencyOption = concurrencyProperty('How many batches to send', DEFAULT_BATCH_CONCURRENCY);

/** The `options.batchSize` parameter of a batched create. */
export function batchSizeOption(records: string): INodeProperties {
	return {
		displayName: 'Batch Size',
		name: 'batchSize',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_BATCH_SIZE },
		default: DEFAULT_BATCH_SIZE,
		description: `How many ${records} to send in one request. A batch the service refuses fails only its own items. Defaults to ${DEFAULT_BATCH_SIZE}.`,
	};
}

/** The `options` collection of an operation: its own options and the request options, in alphabetical order. */
export function optionsCollection(ownOptions: INodeProperties[] = []): INodeProperties {
	return optionsHolding([...ownOptions, ...requestOptionProperties]);
}
