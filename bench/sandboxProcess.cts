import type { ListDialect } from '../sandbox/lists.cts';
import type { RateLimitSettings } from '../sandbox/refusals.cts';
import { Sandbox } from '../sandbox/service.cts';
import type { SandboxState } from '../sandbox/state.cts';

/**
 * The sandbox in a process of its own for the benchmark, so its work runs on the other core, as a real service's
 * would run on another machine, instead of sharing the node's one thread. Driven by messages from the parent:
 * `setup` (answered with the address and token) and `stats` (answered with the request count, the requests refused
 * for the rate, and the registrations held twice).
 */

export interface SandboxSetup {
	/** Forget all data, requests and faults first (a new case on the same sandbox). */
	reset?: boolean;
	latencyMs: number;
	/** Answer 429 (Retry-After: 0) whenever more than this many requests are in flight. */
	inFlightLimit?: number;
	/** Limit the API's rate (429 beyond it). */
	rate?: RateLimitSettings;
	/** Registrations of other customers in one form, the newest last. */
	form?: { slug: string; registrations: number };
	/** How lists are answered (the real service's pages by default); see sandbox/lists.cts. */
	dialect?: Partial<ListDialect>;
	/** Registrations made now, at once (a burst). */
	registrations?: number;
	/** Registrations made over the past 30 days, in a hundred batches: a shop's history. */
	history?: number;
	/** Registrations to hold, as the API takes them. */
	registrationRows?: Array<Record<string, unknown>>;
	serialNumbers?: string[];
	/** Moves the service's clock on by this much: time passing between polls. */
	clockAheadMs?: number;
}

export interface SandboxStats {
	requests: number;
	refusedForRate: number;
	/** Registrations that repeat another of the same e-mail, product and form. */
	duplicates: number;
	registrations: number;
}

export interface SandboxReady {
	baseUrl: string;
	token: string;
	storageUrl: string;
}

/**
 * Registrations like a shop's: a few products, 1,000 customers, one serial each; all made at `createdAt` (an import),
 * or one a second up to now, as customers register.
 */
export function seedRegistrations(state: SandboxState, count: number, createdAt?: string): void {
	const entries = Array.from({ length: count }, (_, index) => ({
		productName: `Kettle K${index % 7}`,
		customerEmail: `customer${index % 1000}@example.com`,
		customerName: `Customer ${index}`,
		serialNumbers: [`KT-${index}`],
		purchaseDate: '2024-03-01',
		customer: { id: 1000 + (index % 1000), city: 'Albany', State: 'NY', country: 'US' },
	}));
	if (createdAt === undefined) state.registerOverTime(entries);
	else state.createRegistrations(entries, createdAt);
}

const DAY = 86_400_000;

/** `count` registrations made over the past 30 days, the oldest first, in a hundred batches. */
function seedHistory(state: SandboxState, count: number): void {
	for (let batch = 0; batch < 100; batch++) {
		const size = Math.floor(count / 100) + (batch < count % 100 ? 1 : 0);
		if (size > 0) seedRegistrations(state, size, new Date(Date.now() - (30 * DAY * (100 - batch)) / 100).toISOString());
	}
}

function statsOf(sandbox: Sandbox): SandboxStats {
	const seen = new Set<string>();
	let duplicates = 0;
	for (const registration of sandbox.state.registrations.values()) {
		const key = [registration.customerEmail?.toLowerCase(), registration.productName, registration.formSlug].join('|');
		if (seen.has(key)) duplicates += 1;
		seen.add(key);
	}
	return {
		requests: sandbox.requests.length,
		refusedForRate: sandbox.refusals?.refused ?? 0,
		duplicates,
		registrations: sandbox.state.registrations.size,
	};
}

async function main(): Promise<void> {
	const sandbox = await Sandbox.start();
	process.on('message', (message: { type: string; setup?: SandboxSetup }) => {
		if (message.type === 'setup' && message.setup) {
			const {
				reset,
				latencyMs,
				inFlightLimit,
				rate,
				form,
				dialect,
				registrations,
				history,
				registrationRows,
				serialNumbers,
				clockAheadMs,
			} = message.setup;
			if (reset) sandbox.reset();
			sandbox.state.clockAheadMs += clockAheadMs ?? 0;
			sandbox.latencyMs = latencyMs;
			if (history) seedHistory(sandbox.state, history);
			if (registrations) seedRegistrations(sandbox.state, registrations);
			if (registrationRows) sandbox.state.registerOverTime(registrationRows);
			if (serialNumbers) sandbox.state.createSerialNumbers(serialNumbers.map((serialNumber) => ({ serialNumber })));
			if (form) {
				sandbox.state.registerOverTime(
					Array.from({ length: form.registrations }, (_, index) => ({
						productName: `Toaster T${index % 3}`,
						customerEmail: `earlier${index}@example.com`,
						type: form.slug,
					})),
				);
			}
			sandbox.limitRate(rate);
			if (dialect) Object.assign(sandbox.dialect, dialect);
			if (inFlightLimit !== undefined) {
				sandbox.faultPlan = () =>
					sandbox.inFlight > inFlightLimit
						? { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Too many requests' } }
						: undefined;
			}
			const ready: SandboxReady = { baseUrl: sandbox.baseUrl, token: sandbox.token, storageUrl: sandbox.storage.url };
			process.send?.({ type: 'ready', ready });
		}
		if (message.type === 'stats') process.send?.({ type: 'stats', stats: statsOf(sandbox) });
		if (message.type === 'stop') void sandbox.stop().then(() => process.exit(0));
	});
	process.send?.({ type: 'started' });
}

void main();
