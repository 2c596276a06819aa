import type { INodeProperties } from 'n8n-workflow';

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
			'How often to repeat a request that failed for a passing reason: 502/503/504, a lost connection or the Timeout. A request that creates something is repeated only when the service cannot have acted on it (a refused connection), so nothing is ever created twice. Refusals for the rate (429) spend none of these: the whole run keeps to the pace it learns from them. While the service refuses (429, or 503), a request waits with the run and fails once (Retries + 1) × Timeout have passed since its first attempt (or since the refusals began, if later), the waiting included. Otherwise one request takes at most (Retries + 1) × Timeout plus the waits between attempts; with the defaults about 2 minutes.',
	},
	{
		displayName: 'Retry Wait (Ms)',
		name: 'retryDelay',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_RETRY_WAIT_MS,
		description:
			'Wait before the first repeat, in milliseconds; it doubles with each further repeat (at most 30 seconds), with some randomness. When the service refuses (429, or 503), the whole run waits as long as it asks (Retry-After, up to 60 seconds) or, when it does not say, this long, doubled while the waits keep ending in refusals; then, whatever this is (0 included), it sends one request at a time and at most 4 in any second until the service takes one. Stop ends a wait at once.',
	},
	{
		displayName: 'Timeout (Ms)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_TIMEOUT_MS,
		description:
			'The longest one request to the service may take as a whole, in milliseconds: connecting, sending and receiving the last byte of the answer. Past it the request is ended and counts as a lost connection. For a file upload to the storage it is the longest the upload may go without a byte moving.',
	},
];

function concurrencyProperty(howMany: string, defaultConcurrency: number): INodeProperties {
	return {
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: defaultConcurrency,
		description: `${howMany} at once. Output order and item links are kept. A run starts with one request at a time and reaches this once 16 have been answered, so that a rate-limited service refuses one request, not a whole round; once the service answers 429 (too many requests), the run keeps to the pace it learns from its refusals instead.`,
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

/** Options of a collection in alphabetical order, as the editor's Add Option list should show them. */
export function alphabetical(properties: INodeProperties[]): INodeProperties[] {
	return [...properties].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** The `options` collection of an operation: its own options and the request options, in alphabetical order. */
export function optionsCollection(ownOptions: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: alphabetical([...ownOptions, ...requestOptionProperties]),
	};
}
