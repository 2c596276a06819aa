import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ListedRegistration } from '../../helpers/listedRegistration';
import { readListedRegistration, sameRegistration } from '../../helpers/listedRegistration';
import { runConcurrently } from '../../helpers/pace';
import { runParameters } from '../../helpers/runParameters';
import { isUnknownOutcome, requestPolicy, serviceRequest } from '../../transport/serviceRequest';
import type { PendingEntry, Settlement } from '../batchCreate';
import { DEFAULT_CONCURRENCY } from '../requestOptions';
import { registrationTarget } from './registrationFields';

/**
 * If Already Registered (Registration → Create): a scheduled import of the same sheet registers nothing twice. Before
 * anything is created, the service is asked once per distinct e-mail for the registrations it holds; an item whose
 * registration is listed there (same product name, and a serial number in common when both have serial numbers) is
 * skipped or updated, and of items of the run that match each other only the first is handled. A create whose answer
 * is lost is resolved by the same lookup instead of being reported as an unknown outcome.
 */

const CREATE_ANYWAY = 'create';
const SKIP = 'skip';
const UPDATE = 'update';

export const ifExistsOption: INodeProperties = {
	displayName: 'If Already Registered',
	name: 'ifExists',
	type: 'options',
	options: [
		{
			name: 'Create Anyway',
			value: CREATE_ANYWAY,
			description: 'Create every item, without looking anything up',
		},
		{
			name: 'Skip',
			value: SKIP,
			description: 'Create only what the service does not hold yet; the others come out as skipped',
		},
		{
			name: 'Update',
			value: UPDATE,
			description: 'Create what the service does not hold yet, and update the registrations it holds',
		},
	],
	default: CREATE_ANYWAY,
	description:
		'A registration already exists when the service lists one for the customer e-mail with the same product name (case and spaces ignored) and, when both have serial numbers, a serial number in common. With Skip or Update every output item says its outcome: created, skipped or updated.',
};

function ifExistsMode(context: IExecuteFunctions): string {
	return runParameters(context).get('options.ifExists', 0, CREATE_ANYWAY) as string;
}

interface Listed {
	listed: ListedRegistration;
	/** The registration as the service listed it, for the output. */
	record: IDataObject;
}

/** What an e-mail's lookup gave: the registrations listed for it, or why they could not be known. */
type Listing = Listed[] | { error: unknown };

const emailOf = (entry: IDataObject) => String(entry.customerEmail ?? '').toLowerCase();

/**
 * The registrations the service lists for an e-mail. Its answer's shape is not documented; it is read the way Get
 * Many reads it, and an answer that does not read as registrations with product names is an error, never a guess.
 */
async function registrationsOf(this: IExecuteFunctions, email: string, itemIndex: number): Promise<Listed[]> {
	const { body } = await serviceRequest.call(this, { method: 'GET', path: 'registrations', qs: { email } }, itemIndex);
	const list = Array.isArray(body)
		? body
		: body !== null && typeof body === 'object'
			? [(body as IDataObject).registrations, (body as IDataObject).data, (body as IDataObject).items].find(
					Array.isArray,
				)
			: body === undefined
				? []
				: undefined;
	const unreadable = (why: string) => {
		const message = `The service's list of registrations for ${email} could not be read (${why}), so it is not known whether item ${itemIndex} is registered already; nothing was sent for it`;
		return new NodeApiError(this.getNode(), { message }, { message, itemIndex });
	};
	if (list === undefined) throw unreadable('the answer is not a list');
	return list.map((record) => {
		if (record === null || typeof record !== 'object' || Array.isArray(record))
			throw unreadable('an entry is not an object');
		const listed = readListedRegistration(record as IDataObject);
		if (listed.productName === undefined) throw unreadable('an entry has no productName');
		return { listed, record: record as IDataObject };
	});
}

/** The registration an entry names, as the matching rule reads it. */
function asRegistration(entry: IDataObject): { productName?: string; serialNumbers?: string[] } {
	return {
		productName: entry.productName as string | undefined,
		serialNumbers: entry.serialNumbers as string[] | undefined,
	};
}

const CORE_KEYS = ['productName', 'customerEmail', 'customerName', 'serialNumbers', 'purchaseDate'];

/** The body of Update for an entry of Create: its standard fields, and its extra form fields under `fields`. */
function updateOf(entry: IDataObject): IDataObject {
	const registration: IDataObject = {};
	const fields: IDataObject = {};
	for (const [key, value] of Object.entries(entry)) {
		if (CORE_KEYS.includes(key)) registration[key] = value;
		else if (key !== 'type' && key !== 'customer') fields[key] = value;
	}
	if (Object.keys(fields).length > 0) registration.fields = fields;
	return registration;
}

function sameValue(a: unknown, b: unknown): boolean {
	if (Array.isArray(a) && Array.isArray(b))
		return JSON.stringify([...a].map(String).sort()) === JSON.stringify([...b].map(String).sort());
	return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the listed registration already holds every value the update would send (unknown ones count as changed). */
function holdsAlready(update: IDataObject, record: IDataObject): boolean {
	const { fields, ...core } = update;
	const listedFields = (record.fields ?? {}) as IDataObject;
	return (
		Object.entries(core).every(([key, value]) => sameValue(value, record[key])) &&
		Object.entries((fields ?? {}) as IDataObject).every(([key, value]) =>
			sameValue(value, listedFields[key] ?? record[key]),
		)
	);
}

/** Looks up each distinct e-mail once, up to the per-item concurrency at once; a failed lookup fails only its e-mail. */
async function lookUp(
	this: IExecuteFunctions,
	firstItemOfEmail: Map<string, number>,
	entryEmail: Map<string, string>,
): Promise<Map<string, Listing>> {
	const emails = [...firstItemOfEmail.keys()];
	const listings = new Map<string, Listing>();
	await runConcurrently(this, emails.length, DEFAULT_CONCURRENCY, false, async (index) => {
		const email = emails[index];
		try {
			listings.set(email, await registrationsOf.call(this, entryEmail.get(email)!, firstItemOfEmail.get(email)!));
		} catch (error) {
			listings.set(email, { error });
		}
	});
	return listings;
}

/** The `settleFirst` of Registration → Create: nothing to settle unless If Already Registered is Skip or Update. */
export async function settleFirst(
	this: IExecuteFunctions,
	pending: PendingEntry[],
): Promise<Array<Settlement | undefined>> {
	const mode = ifExistsMode(this);
	if (mode === CREATE_ANYWAY) return [];
	const settlements: Array<Settlement | undefined> = new Array(pending.length);

	// Of entries of this run that match each other, the first is handled; the later ones repeat it.
	const firstsByEmail = new Map<string, PendingEntry[]>();
	const handled: number[] = [];
	const firstItemOfEmail = new Map<string, number>();
	const entryEmail = new Map<string, string>();
	pending.forEach((candidate, position) => {
		const email = emailOf(candidate.entry);
		const firsts = firstsByEmail.get(email) ?? [];
		const repeated = firsts.find((first) =>
			sameRegistration(asRegistration(first.entry), asRegistration(candidate.entry)),
		);
		if (repeated) {
			settlements[position] = {
				sameAs: repeated.itemIndex,
				json: { outcome: 'skipped', repeatsItem: repeated.itemIndex },
			};
			return;
		}
		firstsByEmail.set(email, [...firsts, candidate]);
		handled.push(position);
		if (!firstItemOfEmail.has(email)) {
			firstItemOfEmail.set(email, candidate.itemIndex);
			entryEmail.set(email, String(candidate.entry.customerEmail));
		}
	});

	const listings = await lookUp.call(this, firstItemOfEmail, entryEmail);
	const updates: Array<{ position: number; id: string; registration: IDataObject }> = [];
	for (const position of handled) {
		const { entry, itemIndex } = pending[position];
		const listing = listings.get(emailOf(entry))!;
		if ('error' in listing) {
			settlements[position] = listing;
			continue;
		}
		const existing = listing.find(({ listed }) => sameRegistration(listed, asRegistration(entry)));
		if (existing === undefined) continue;
		const registration = updateOf(entry);
		if (mode === SKIP || holdsAlready(registration, existing.record)) {
			settlements[position] = { json: { outcome: 'skipped', ...existing.record } };
		} else if (existing.listed.id === undefined) {
			const message = `The service lists a registration for item ${itemIndex} but without an id, so it cannot be updated`;
			settlements[position] = { error: new NodeApiError(this.getNode(), { message }, { message, itemIndex }) };
		} else {
			updates.push({ position, id: existing.listed.id, registration });
		}
	}

	await runConcurrently(this, updates.length, DEFAULT_CONCURRENCY, false, async (index) => {
		const { position, id, registration } = updates[index];
		try {
			const { body } = await serviceRequest.call(
				this,
				{ method: 'PUT', ...registrationTarget(id), body: { registration } },
				pending[position].itemIndex,
			);
			const answer =
				body !== null && typeof body === 'object' && !Array.isArray(body)
					? (body as IDataObject)
					: { id, ...registration };
			settlements[position] = { json: { outcome: 'updated', ...answer } };
		} catch (error) {
			settlements[position] = { error };
		}
	});
	return settlements;
}

/**
 * With Skip or Update, a create whose answer was lost (the connection dropped after sending, the Timeout passed, a
 * proxy answered HTML) is not left as an unknown outcome: the e-mails of its entries are looked up, entries found are
 * created, the others are sent again, counting against Retries. If a lookup fails, the unknown outcome stands.
 */
export function createdOnce(
	send: (this: IExecuteFunctions, entries: IDataObject[], itemIndexes: number[]) => Promise<IDataObject[]>,
) {
	return async function sendBatch(
		this: IExecuteFunctions,
		entries: IDataObject[],
		itemIndexes: number[],
	): Promise<IDataObject[]> {
		if (ifExistsMode(this) === CREATE_ANYWAY) return await send.call(this, entries, itemIndexes);
		const results: IDataObject[] = new Array(entries.length);
		let open = entries.map((_, position) => position);
		const { maxRetries } = requestPolicy(this, itemIndexes[0]);
		for (let attempt = 1; ; attempt++) {
			const sent = await send
				.call(
					this,
					open.map((position) => entries[position]),
					open.map((position) => itemIndexes[position]),
				)
				.then(
					(created) => ({ created }),
					(error: unknown) => ({ error }),
				);
			if ('created' in sent) {
				open.forEach((position, index) => (results[position] = { outcome: 'created', ...sent.created[index] }));
				return results;
			}
			if (!isUnknownOutcome(sent.error)) throw sent.error;
			const notFound = await stillToCreate.call(this, entries, itemIndexes, open, results).then(
				(positions) => positions,
				() => undefined,
			);
			// A failed lookup leaves the outcome unknown, as without If Already Registered.
			if (notFound === undefined) throw sent.error;
			open = notFound;
			if (open.length === 0) return results;
			if (attempt > maxRetries) throw sent.error;
		}
	};
}

/** The entries (positions) not found at the service after a lost create; those found get their result. */
async function stillToCreate(
	this: IExecuteFunctions,
	entries: IDataObject[],
	itemIndexes: number[],
	open: number[],
	results: IDataObject[],
): Promise<number[]> {
	const listings = new Map<string, Listed[]>();
	for (const position of open) {
		const email = emailOf(entries[position]);
		if (!listings.has(email))
			listings.set(
				email,
				await registrationsOf.call(this, String(entries[position].customerEmail), itemIndexes[position]),
			);
	}
	return open.filter((position) => {
		const found = listings
			.get(emailOf(entries[position]))!
			.find(({ listed }) => sameRegistration(listed, asRegistration(entries[position])));
		if (found) results[position] = { outcome: 'created', ...found.record };
		return found === undefined;
	});
}
