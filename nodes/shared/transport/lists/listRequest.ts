import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { asObject, listIn } from '../answerShapes';
import type { RequestFor } from '../serviceRequest';
import { serviceRequest } from '../serviceRequest';
import type { ServiceContext } from '../session';

// A list the node asks the service for, one answer to it, and how a read of it ended.

/** The most records a page of the real service holds (docs/service.md): no service is taken to cut an answer to more. */
export const LARGEST_PAGE = 100;
/** The most records a window asks for: one under the page of 100, which was seen to leave out the newest (docs/service.md). */
export const WINDOW = LARGEST_PAGE - 1;
/**
 * The fewest records a service is taken to give a page: its default page is not known but small (docs/service.md), and
 * an answer shorter than this, and than asked, is the list's end even where no total says so.
 */
export const MIN_PAGE_SIZE = 10;
/** The most records one read takes: a million, more than one n8n execution holds. */
export const MAX_RECORDS = 1_000_000;

export interface ListRequest {
	/** Path below `/api/`, e.g. `registrations`. */
	path: string;
	/** The filters; `page` and `limit` are added. */
	qs?: IDataObject;
	/** The key an answer that is an object may hold its records under besides `data` and `items`, e.g. `registrations`. */
	resourceKey: string;
	/** What is listed, in words, for messages: "registrations for ann@example.com". */
	what: string;
	/** The list is not on every service (GET /api/forms): a 404 reads as `absent` instead of failing. */
	mayBeAbsent?: boolean;
	/** What identifies a record (a registration's id); one without it is identified by all of it. */
	identify: (record: IDataObject) => string | undefined;
	/** When a record was made (a registration's `createdAt`): records of one moment may be listed in any order. */
	momentOf?: (record: IDataObject) => number | undefined;
}

/** One answer to a list request: its records and total, and whether it was a bare array; no `page` when it holds no list. */
export interface ListAnswer {
	body: unknown;
	/** The 404 of a list that `mayBeAbsent`. */
	absent: boolean;
	page: { records: IDataObject[]; total?: number; bare: boolean } | undefined;
	/** The answer's `Date` (ms since the epoch), when it had one. */
	answeredAt?: number;
}

/** How a read ended. */
export interface ReadEnding {
	/** Why the read may not hold every record, and whether it could not read on at all. */
	gap?: string;
	stoppedShort?: boolean;
	/** The answer held no list at all (`records` then holds that answer as one record). */
	notAList?: boolean;
	/** A list that `mayBeAbsent` is not on this service: it answered 404. */
	absent?: boolean;
}

function wholeNumberIn(value: unknown): number | undefined {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** A list answer's records and total (under `total`, or `meta.total`); undefined for an answer that holds no list. */
function pageOf(body: unknown, resourceKey: string): ListAnswer['page'] {
	if (body === undefined || body === null || body === '') return { records: [], bare: true };
	const records = listIn(body, resourceKey)?.map(asObject);
	if (records === undefined) return undefined;
	if (Array.isArray(body)) return { records, bare: true };
	const wrapper = body as IDataObject;
	const meta = wrapper.meta as IDataObject | undefined;
	return {
		records,
		total: wholeNumberIn(wrapper.total) ?? wholeNumberIn(meta?.total),
		bare: false,
	};
}

/** Asks for one answer of a list: an ordinary request (retries, Timeout, Stop, the run's pace). */
export async function askList(
	context: ServiceContext,
	list: ListRequest,
	requestFor: RequestFor,
	paging: IDataObject,
): Promise<ListAnswer> {
	const { statusCode, body, answeredAt } = await serviceRequest.call(
		context,
		{
			method: 'GET',
			path: list.path,
			qs: { ...list.qs, ...paging },
			mayBeAbsent: list.mayBeAbsent,
		},
		requestFor,
	);
	return {
		body,
		page: pageOf(body, list.resourceKey),
		absent: statusCode === 404,
		answeredAt,
	};
}

/** The error of a read that went on for `windows` windows: the list did not end (a service that answers for ever). */
export function endlessList(
	context: ServiceContext,
	list: ListRequest,
	windows: number,
	requestFor: RequestFor,
): NodeApiError {
	const message = `The service's list of ${list.what} did not end after ${windows.toLocaleString('en-US')} pages: the node stopped reading it rather than go on for ever`;
	const description = 'Narrow the list with a filter, or set a Limit.';
	return new NodeApiError(context.getNode(), { message }, { message, description, itemIndex: requestFor.itemIndex });
}
