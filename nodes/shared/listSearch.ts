import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { isEmail, readListedRegistration, registrationsList } from './registrations';
import type { ListPosition } from './transport/lists/listReader';
import { ListReader, readList } from './transport/lists/listReader';
import { WINDOW } from './transport/lists/listRequest';
import { WITHOUT_ITEM } from './transport/serviceRequest';

/** Pages read for one answer while what was typed narrows them to nothing, before the editor is answered anyway. */
const PAGES_PER_SEARCH = 10;

/** Whether a list entry holds what the user typed, ignoring case. */
function holds(words: Array<string | undefined>, typed: string): boolean {
	return typed === '' || words.join(' ').toLowerCase().includes(typed.toLowerCase());
}

/** Where a scroll has reached: the reader's place, and the registrations the last answer showed. */
interface Scroll {
	from?: ListPosition;
	shown: string[];
}

/**
 * "From List" of the Registration parameter. A complete email address is searched by the service (the API's
 * `email` filter); anything else typed is matched here against the registrations the service lists, by email, name,
 * product or ID. The list comes a page at a time as the user scrolls, read by the list reader's rules, each
 * registration shown once. Each entry shows what a person recognises — product, customer, purchase date — and falls
 * back to the ID when the service's answer has none of them.
 */
export async function searchRegistrations(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const typed = (filter ?? '').trim();
	const byEmail = isEmail(typed);
	const { from, shown } = scrollIn(paginationToken);
	const reader = new ListReader(this, registrationsList(byEmail ? { email: typed } : {}), WITHOUT_ITEM, { from });
	const results: INodeListSearchItems[] = [];
	const listed = new Set(shown);
	for (let read = 0; read < PAGES_PER_SEARCH; read++) {
		const more = await reader.readWindow();
		for (const record of reader.lastRecords) {
			const registration = readListedRegistration(record);
			if (registration.id === undefined || listed.has(registration.id)) continue;
			listed.add(registration.id);
			const label = [
				registration.productName,
				registration.customerName ?? registration.customerEmail,
				registration.purchaseDate,
			]
				.filter((word) => word !== undefined)
				.join(' · ');
			if (!byEmail && !holds([label, registration.customerEmail, registration.id], typed)) continue;
			results.push({ name: label === '' ? registration.id : `${label} (${registration.id})`, value: registration.id });
		}
		if (!more) return { results };
		if (results.length > 0) break;
	}
	// The next window reads again from the reader's place, at most a window back: those shown are not shown twice.
	const next: Scroll = { from: reader.position, shown: [...listed].slice(-2 * WINDOW) };
	return { results, paginationToken: JSON.stringify(next) };
}

/** The editor keeps where a scroll has reached as a string between calls (a Scroll, as JSON). */
function scrollIn(token: string | undefined): Scroll {
	try {
		const scroll = JSON.parse(token ?? '') as Partial<Scroll> | null;
		const from = scroll?.from;
		const placed = typeof from?.anchor === 'string' && Number.isInteger(from.at);
		return { from: placed ? from : undefined, shown: Array.isArray(scroll?.shown) ? scroll.shown.map(String) : [] };
	} catch {
		return { shown: [] };
	}
}

/** What From List of a Form shows when the service has no list of forms (the API page shows none). */
export const NO_FORM_LIST =
	'This service does not list its forms: choose By Slug and type the slug (Form > View on the frontend in the admin)';

/** A form's slug, what identifies it. */
function slugOf(form: IDataObject): string | undefined {
	const slug = typeof form.slug === 'string' || typeof form.slug === 'number' ? String(form.slug).trim() : '';
	return slug === '' ? undefined : slug;
}

/**
 * "From List" of a Form: the forms the service lists (GET /api/forms), narrowed by what was typed in their name or
 * slug. A service without that list answers 404; the list then says so, and typing the slug By Slug still works.
 */
export async function searchForms(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const forms = await readList.call(
		this,
		{ path: 'forms', resourceKey: 'forms', what: 'forms', mayBeAbsent: true, identify: slugOf },
		WITHOUT_ITEM,
	);
	if (forms.ending?.absent) return { results: [{ name: NO_FORM_LIST, value: '' }] };
	const typed = (filter ?? '').trim();
	const results: INodeListSearchItems[] = [];
	for (const form of forms.records) {
		const slug = slugOf(form);
		if (slug === undefined) continue;
		const name = typeof form.name === 'string' && form.name.trim() !== '' ? form.name.trim() : slug;
		if (!holds([name, slug], typed)) continue;
		results.push({ name: name === slug ? slug : `${name} (${slug})`, value: slug });
	}
	return { results };
}
