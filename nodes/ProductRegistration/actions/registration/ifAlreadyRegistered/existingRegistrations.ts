import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { runConcurrently } from '../../../helpers/concurrency';
import type { ListedRegistration } from '../../../../shared/registrations';
import {
	customerEmailOf,
	readListedRegistration,
	registrationsList,
	sameRegistration,
} from '../../../../shared/registrations';
import { ListReader, readList } from '../../../../shared/transport/lists/listReader';
import type { PendingEntry } from '../../operation';
import { DEFAULT_CONCURRENCY, requestFor } from '../../../input/runOptions';
import { forItem } from '../../../input/itemInput';

/**
 * What the service holds already, for If Already Registered and for a create whose answer was lost. A registration
 * counts for a row when it is listed for the row's customer email — in the row's form when the row names one, in any
 * form otherwise — with the same product name and, when both have serial numbers, one in common.
 */

/** A registration the service lists for a customer. */
export interface ExistingRegistration {
	/** What the matching rule reads of it. */
	listed: ListedRegistration;
	/** The registration as the service listed it, for the output. */
	record: IDataObject;
}

/**
 * What the service lists for one customer. When the list came back short of what the service said it holds, a
 * registration missing from it may still exist: `incomplete` says why, and only a match in the list can be trusted.
 */
export interface Registrations {
	existing: ExistingRegistration[];
	incomplete?: string;
}

/** A customer of the run: one email, in one form or (without one) in any. */
export interface Customer {
	/** The email as its first item gives it, and that item, which a failed lookup's error names. */
	email: string;
	formSlug?: string;
	firstItemIndex: number;
	/** The first entry of each distinct registration the run names for this customer, and its position in the run. */
	distinct: Array<PendingEntry & { position: number }>;
	listed?: Registrations | { error: unknown };
}

/** The customer an entry is for: email addresses are compared without case. */
export function customerKey(entry: IDataObject): string {
	return `${String(entry.type ?? '')}\u0000${String(entry.customerEmail ?? '')
		.trim()
		.toLowerCase()}`;
}

export function asRegistration(entry: IDataObject): { productName?: string; serialNumbers?: string[] } {
	return {
		productName: entry.productName as string | undefined,
		serialNumbers: entry.serialNumbers as string[] | undefined,
	};
}

/** The registration among `existing` that an entry names, by the matching rule. */
export function findSame(existing: ExistingRegistration[], entry: IDataObject): ExistingRegistration | undefined {
	return existing.find(({ listed }) => sameRegistration(listed, asRegistration(entry)));
}

/** `values` in groups by `keyOf`, each group in the order its values came. */
function groupedBy<K, V>(values: V[], keyOf: (value: V) => K): Map<K, V[]> {
	const groups = new Map<K, V[]>();
	for (const value of values) {
		const key = keyOf(value);
		const group = groups.get(key);
		if (group === undefined) groups.set(key, [value]);
		else group.push(value);
	}
	return groups;
}

function unreadable(context: IExecuteFunctions, what: string, why: string, itemIndex: number): NodeApiError {
	const message = forItem(
		`The service's list of ${what} could not be read (${why}), so it is not known whether the item is registered already; nothing was sent for it`,
		itemIndex,
	);
	return new NodeApiError(context.getNode(), { message }, { message, itemIndex });
}

/** A customer's listed registrations, each with a product name: anything else is an error, never a guess. */
function existingIn(
	context: IExecuteFunctions,
	records: IDataObject[],
	what: string,
	itemIndex: number,
): ExistingRegistration[] {
	return records.map((record) => {
		const listed = readListedRegistration(record);
		if (listed.productName === undefined) throw unreadable(context, what, 'an entry has no productName', itemIndex);
		return { listed, record };
	});
}

/**
 * The registrations the service holds for an email (GET /api/registrations?email=, with `formSlug` when a form is
 * named), every page of them. The API page does not say whether the filter minds case: an email written with
 * capitals is also looked up as most shops store it, in lower case. An answer that does not read as registrations
 * with product names is an error, never a guess: a wrong guess would create a registration twice or skip a new one.
 */
export async function registrationsOf(
	this: IExecuteFunctions,
	email: string,
	formSlug: string | undefined,
	itemIndex: number,
): Promise<Registrations> {
	const what = `registrations for ${email}${formSlug === undefined ? '' : ` in the form ${formSlug}`}`;
	const spellings = [...new Set([email.trim(), email.trim().toLowerCase()])];
	const existing: ExistingRegistration[] = [];
	const records = new Set<string>();
	const forItem = requestFor(this, itemIndex);
	let incomplete: string | undefined;
	for (const spelling of spellings) {
		const qs: IDataObject = formSlug === undefined ? { email: spelling } : { email: spelling, formSlug };
		const list = await readList.call(this, registrationsList(qs, what), forItem);
		if (list.ending?.notAList) throw unreadable(this, what, 'the answer is not a list', itemIndex);
		for (const found of existingIn(this, list.records, what, itemIndex)) {
			const key = JSON.stringify(found.record);
			if (!records.has(key)) existing.push(found);
			records.add(key);
		}
		if (!list.complete) incomplete ??= `The service's list of ${what} may be incomplete (${list.ending?.gap})`;
	}
	return { existing, incomplete };
}

/**
 * Reads one form's registrations (or all, for customers of no form) for its customers: the first page, and the rest
 * when its total shows that they take no more requests than looking each customer up would. A customer whose rows
 * all match what was read is settled; so is every customer when the whole listing came back. Returns the customers
 * still to look up by email: all of them when the listing cannot be read or does not say whose each registration is.
 */
async function listForCustomers(
	this: IExecuteFunctions,
	formSlug: string | undefined,
	customers: Customer[],
): Promise<Customer[]> {
	if (customers.length < 2) return customers;
	const what = formSlug === undefined ? 'registrations' : `registrations of the form ${formSlug}`;
	let listing: ListReader;
	try {
		listing = new ListReader(
			this,
			registrationsList(formSlug === undefined ? {} : { formSlug }, what),
			requestFor(this, customers[0].firstItemIndex),
		);
		await listing.readWindow();
		if (listing.ending?.notAList) return customers;
		const windowsLeft = listing.windowsLeft;
		if (windowsLeft !== undefined && windowsLeft <= customers.length) while (await listing.readWindow());
	} catch {
		// The lookups by email say, each for its own rows, what went wrong.
		return customers;
	}
	const byEmail = groupedBy(listing.records, (record) => customerEmailOf(record)?.toLowerCase());
	// Without each record's email the listing cannot say whose it is.
	if (byEmail.has(undefined)) return customers;
	const stillToLookUp: Customer[] = [];
	for (const customer of customers) {
		const theirs = byEmail.get(customer.email.trim().toLowerCase()) ?? [];
		try {
			const existing = existingIn(this, theirs, what, customer.firstItemIndex);
			const allFound = customer.distinct.every(({ entry }) => findSame(existing, entry) !== undefined);
			if (listing.complete || allFound) customer.listed = { existing };
			else stillToLookUp.push(customer);
		} catch (error) {
			customer.listed = { error };
		}
	}
	return stillToLookUp;
}

/**
 * Fills in what the service holds for every customer of the run, with the fewest requests: for the customers of
 * each form, one listing of the form's registrations or one lookup per email (each paged), whichever the listing's
 * first page says is cheaper — the first page itself settles the customers it shows every row of. A failed lookup
 * fails only its customer's rows.
 */
export async function findExisting(this: IExecuteFunctions, customers: Customer[]): Promise<void> {
	const lookups: Customer[] = [];
	for (const [formSlug, ofForm] of groupedBy(customers, (customer) => customer.formSlug))
		lookups.push(...(await listForCustomers.call(this, formSlug, ofForm)));
	await runConcurrently(lookups.length, DEFAULT_CONCURRENCY, false, async (index) => {
		const customer = lookups[index];
		customer.listed = await registrationsOf
			.call(this, customer.email, customer.formSlug, customer.firstItemIndex)
			.catch((error: unknown) => ({ error }));
	});
}
