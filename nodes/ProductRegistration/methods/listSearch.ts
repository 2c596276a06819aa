import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { readListedRegistration } from '../helpers/listedRegistration';
import { isEmail, listFromBody } from '../helpers/values';
import { serviceRequest } from '../transport/serviceRequest';

/** How many registrations the list shows; enough to pick from, small enough to answer quickly. */
const SEARCH_LIMIT = 100;

/**
 * "From List" of the Registration parameter. A complete e-mail address is searched by the service (the API's
 * `email` filter); anything else shown is matched here against the registrations the service lists first, by
 * e-mail, name, product or ID. Each entry shows what a person recognises — product, customer, purchase date — and
 * falls back to the ID when the service's answer has none of them.
 */
export async function searchRegistrations(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const typed = (filter ?? '').trim();
	const byEmail = isEmail(typed);
	const { body } = await serviceRequest.call(
		this,
		{
			method: 'GET',
			path: 'registrations',
			qs: byEmail ? { email: typed, limit: SEARCH_LIMIT } : { limit: SEARCH_LIMIT },
		},
		0,
	);
	const needle = typed.toLowerCase();
	const results: INodeListSearchItems[] = [];
	for (const record of listFromBody(body, 'registrations')) {
		const registration = readListedRegistration(record);
		if (registration.id === undefined) continue;
		const words = [
			registration.productName,
			registration.customerName ?? registration.customerEmail,
			registration.purchaseDate,
		];
		const label = words.filter((word) => word !== undefined).join(' · ');
		if (!byEmail && needle !== '') {
			const haystack = [label, registration.customerEmail, registration.id].join(' ').toLowerCase();
			if (!haystack.includes(needle)) continue;
		}
		results.push({ name: label === '' ? registration.id : `${label} (${registration.id})`, value: registration.id });
	}
	return { results };
}
