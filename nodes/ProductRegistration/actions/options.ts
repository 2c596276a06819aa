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

/** How requests to the service behave; every operation offers these under Options. */
const requestOptionProperties: INodeProperties[] = [
	{
		displayName: 'Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: MAX_RETRIES },
		default: DEFAULT_RETRIES,
		description:
			'How often to repeat a request that failed for a passing reason (HTTP 502 to 504, a lost connection, the Timeout). A create is repeated only when the service cannot have acted on it, so nothing is created twice.',
	},
	{
		displayName: 'Retry Wait (Ms)',
		name: 'retryDelay',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_RETRY_WAIT_MS,
		description:
			'Wait before the first repeat, in milliseconds, doubled for each further one (at most 30 seconds). When the service refuses for the rate (429), the whole run waits as long as it asks instead.',
	},
	{
		displayName: 'Timeout (Ms)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_TIMEOUT_MS,
		description:
			'The longest one request may take as a whole, in milliseconds, from connecting to the last byte of the answer. For a file upload to the storage: the longest it may go without a byte moving.',
	},
];

function concurrencyProperty(howMany: string, defaultConcurrency: number): INodeProperties {
	return {
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: defaultConcurrency,
		description: `${howMany} at once. Output order and item links are kept; a run starts with one request at a time and keeps to the pace the service allows.`,
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
		description: `How many ${records} to send in one request. Input items are sent in batches of this size; a batch the service refuses fails only its own items.`,
	};
}

/** The `options` collection of an operation: its own options and the request options, in alphabetical order. */
export function optionsCollection(ownOptions: INodeProperties[] = []): INodeProperties {
	return optionsHolding([...ownOptions, ...requestOptionProperties]);
}
