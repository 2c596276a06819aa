import { restoreLogLevel } from '../../harness/verboseLogs.cts';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness/workflowRunner.cts';
import { seededRandom } from '../../sandbox/random.cts';
import type { Fault, RecordedRequest } from '../../sandbox/service.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { writeDocsSection, writesDocs } from '../../scripts/docsSection.cts';

/**
 * The fault-injection suite: at least 1,000 operations of every kind run through the engine while the sandbox
 * injects faults at random (fixed seed). Whatever happens, every input item must come out exactly once, nothing may
 * be created twice, and the token must appear in no output, error or log line.
 */

const { sandbox, credentials } = useSandbox();

const SEED = 20261122;
const FAULT_RATE = 0.1;
const OPERATIONS_PER_KIND = 1000;
const ITEMS_PER_RUN = 50;
const options = { retryDelay: 1, timeout: 250, maxRetries: 3 };

const FAULTS: Array<[weight: number, name: string, fault: Fault]> = [
	[10, '500', { status: 500, body: { message: 'Internal error' } }],
	[12, '502', { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }],
	[12, '503', { status: 503, body: { message: 'Service Unavailable' } }],
	[12, '504', { status: 504, body: '<html><title>Gateway Timeout</title></html>' }],
	[10, '429', { status: 429, body: { message: 'Too many requests' } }],
	[8, '429 Retry-After: 0', { status: 429, headers: { 'retry-after': '0' }, body: {} }],
	[5, '429 Retry-After: date', { status: 429, headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:00 GMT' }, body: {} }],
	[10, 'reset before handling', { resetBeforeHandling: true }],
	[10, 'reset after handling', { resetAfterHandling: true }],
	[3, 'slow answer past the timeout', { delayMs: 500 }],
	[
		6,
		'malformed JSON',
		{ status: 200, body: '{"registrations": [{"id": ', headers: { 'content-type': 'application/json' } },
	],
	[2, 'HTML error page', { status: 503, body: '<!doctype html><html><body><p>Maintenance</p></body></html>' }],
];

/** The operations a request carries, by the unique keys each operation of the suite uses. */
function operationKeys(request: RecordedRequest, runKey: string): string[] {
	const body = (request.body ?? {}) as IDataObject;
	const byId = /^\/api\/registrations\/([^/]+)/.exec(request.path);
	if (request.path === '/api/registrations' && request.method === 'POST') {
		return ((body.registrations as IDataObject[]) ?? []).map((entry) => String(entry.opId));
	}
	if (request.path === '/api/serial_numbers' && request.method === 'POST') {
		return ((body.serialNumbers as IDataObject[]) ?? []).map((entry) => String(entry.serialNumber));
	}
	if (byId) return [decodeURIComponent(byId[1])];
	if (request.path === '/api/registrations') return [request.query.email];
	if (request.path.startsWith('/api/serial_numbers/')) return [decodeURIComponent(request.path.slice(20))];
	if (request.path === '/api/upload_file') return [request.query.fileName];
	return [runKey];
}

interface Kind {
	name: string;
	parameters: INodeParameters;
	/** The input items of run `run`, and the key of each item's operation. */
	items(run: number): Array<{ item: INodeExecutionData; key: string }>;
	itemsPerRun: number;
}

const key = (kind: string, run: number, index: number) => `${kind}-${run}-${index}`;

function kinds(): Kind[] {
	const perItem = (
		name: string,
		parameters: INodeParameters,
		json: (key: string) => IDataObject,
		binary = false,
	): Kind => ({
		name,
		parameters: { ...parameters, options },
		itemsPerRun: ITEMS_PER_RUN,
		items: (run) =>
			Array.from({ length: ITEMS_PER_RUN }, (_, index) => {
				const opKey = key(name, run, index);
				const item: INodeExecutionData = { json: { ...json(opKey), key: opKey } };
				if (binary) {
					item.binary = {
						data: {
							data: Buffer.from(`receipt ${opKey}`).toString('base64'),
							fileName: `${opKey}.txt`,
							mimeType: 'text/plain',
						},
					};
				}
				return { item, key: opKey };
			}),
	});
	return [
		perItem(
			'registration.create',
			{
				resource: 'registration',
				operation: 'create',
				productName: 'Kettle K1',
				customerEmail: '={{ $json.key }}@example.com',
				additionalFields: { extraFieldsJson: '={{ { opId: $json.key } }}' },
				options: { ...options, batchSize: 10 },
			},
			() => ({}),
		),
		perItem(
			'registration.update',
			{
				resource: 'registration',
				operation: 'update',
				registrationId: '={{ $json.key }}',
				updateFields: { productName: 'Kettle K2' },
			},
			() => ({}),
		),
		perItem(
			'registration.updateStatus',
			{
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: '={{ $json.key }}',
				status: 'approved',
				additionalFields: { note: '={{ $json.key }}' },
			},
			() => ({}),
		),
		perItem(
			'registration.delete',
			{ resource: 'registration', operation: 'delete', registrationId: '={{ $json.key }}' },
			() => ({}),
		),
		perItem(
			'registration.getAll',
			{
				resource: 'registration',
				operation: 'getAll',
				returnAll: true,
				filters: { email: '={{ $json.key }}@example.com' },
			},
			() => ({}),
		),
		perItem(
			'serialNumber.create',
			{
				resource: 'serialNumber',
				operation: 'create',
				serialNumber: '={{ $json.key }}',
				sku: 'SKU-1',
				customerTags: 'a, b',
				options: { ...options, batchSize: 10 },
			},
			() => ({}),
		),
		perItem(
			'serialNumber.get',
			{ resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.key }}' },
			() => ({}),
		),
		{
			name: 'serialNumber.getUnregistered',
			parameters: { resource: 'serialNumber', operation: 'getUnregistered', options },
			itemsPerRun: 1,
			items: (run) => [{ item: { json: {} }, key: `serialNumber.getUnregistered-run-${run}` }],
		},
		perItem('file.upload', { resource: 'file', operation: 'upload' }, () => ({}), true),
	];
}

/** The records the per-item operations work on: one registration per update/status/delete/getAll operation. */
function seed(kind: Kind, runs: number): void {
	const keys = Array.from({ length: runs }, (_, run) => kind.items(run).map(({ key: opKey }) => opKey)).flat();
	const state = sandbox().state;
	if (['registration.update', 'registration.updateStatus', 'registration.delete'].includes(kind.name)) {
		for (const opKey of keys) {
			state.registrations.set(opKey, {
				id: opKey,
				formSlug: null,
				productName: 'Kettle K1',
				serialNumbers: [],
				fields: {},
				status: null,
				isPublic: false,
				statusHistory: [],
				createdAt: new Date().toISOString(),
			});
		}
	}
	if (kind.name === 'registration.getAll') {
		state.createRegistrations(
			keys.map((opKey) => ({ productName: 'Kettle K1', customerEmail: `${opKey}@example.com` })),
		);
	}
	if (kind.name === 'serialNumber.get') state.createSerialNumbers(keys.map((opKey) => ({ serialNumber: opKey })));
	if (kind.name === 'serialNumber.getUnregistered') {
		state.createSerialNumbers(Array.from({ length: 50 }, (_, index) => ({ serialNumber: `POOL-${index}` })));
	}
}

/**
 * Captures everything written to the process's streams and to the console's own streams (n8n's logger writes to
 * `console._stdout`, which jest points elsewhere when it runs several files).
 */
function captureLogs(): { lines: string[]; restore: () => void } {
	const lines: string[] = [];
	const consoleStreams = console as unknown as { _stdout?: NodeJS.WriteStream; _stderr?: NodeJS.WriteStream };
	const streams = [...new Set([process.stdout, process.stderr, consoleStreams._stdout, consoleStreams._stderr])].filter(
		(stream): stream is NodeJS.WriteStream => stream !== undefined,
	);
	const originalWrites = streams.map((stream) => stream.write);
	for (const stream of streams) {
		stream.write = ((chunk: unknown) => {
			lines.push(String(chunk));
			return true;
		}) as typeof stream.write;
	}
	const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
		jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
			lines.push(args.map(String).join(' '));
		}),
	);
	return {
		lines,
		restore: () => {
			streams.forEach((stream, index) => (stream.write = originalWrites[index]));
			spies.forEach((spy) => spy.mockRestore());
		},
	};
}

test('fault injection: nothing lost, nothing duplicated, no token leaked', async () => {
	const random = seededRandom(SEED);
	const totalWeight = FAULTS.reduce((sum, [weight]) => sum + weight, 0);
	const faultedKeys = new Set<string>();
	const faultCounts = new Map<string, number>();
	const errorCauses = new Map<string, number>();
	let runKey = '';
	sandbox().state.random = seededRandom(SEED + 1);

	const summary = {
		operations: 0,
		faults: 0,
		succeededAfterRetry: 0,
		errorItems: 0,
		itemsLost: 0,
		duplicates: 0,
		tokenLeaks: 0,
	};
	const logs = captureLogs();
	try {
		for (const kind of kinds()) {
			const runs = Math.ceil(OPERATIONS_PER_KIND / kind.itemsPerRun);
			seed(kind, runs);
			sandbox().faultPlan = (request) => {
				if (random() >= FAULT_RATE) return undefined;
				let pick = random() * totalWeight;
				const [, name, fault] = FAULTS.find(([weight]) => (pick -= weight) < 0) ?? FAULTS[0];
				faultCounts.set(name, (faultCounts.get(name) ?? 0) + 1);
				operationKeys(request, runKey).forEach((opKey) => faultedKeys.add(opKey));
				return fault;
			};
			for (let run = 0; run < runs; run++) {
				const inputs = kind.items(run);
				runKey = inputs[0].key;
				const result = await runNode({
					parameters: kind.parameters,
					credentials: credentials(),
					items: inputs.map(({ item }) => item),
					continueOnFail: true,
				});
				summary.operations += inputs.length;
				const outputsPerItem = new Map<number, INodeExecutionData[]>();
				for (const output of result.items) {
					const index = (output.pairedItem as { item: number }).item;
					outputsPerItem.set(index, [...(outputsPerItem.get(index) ?? []), output]);
				}
				inputs.forEach(({ key: opKey }, index) => {
					const outputs = outputsPerItem.get(index) ?? [];
					if (outputs.length !== 1) summary.itemsLost += 1;
					else if (outputs[0].json.error !== undefined) {
						summary.errorItems += 1;
						const cause = String(outputs[0].json.error)
							.replace(/:.*$|\d+/g, '')
							.slice(0, 40);
						errorCauses.set(cause, (errorCauses.get(cause) ?? 0) + 1);
					} else if (faultedKeys.has(opKey)) summary.succeededAfterRetry += 1;
				});
				const shown = JSON.stringify(result.items) + JSON.stringify(result.error ?? null);
				if (shown.includes(sandbox().token)) summary.tokenLeaks += 1;
				if (result.error) throw new Error(`The run failed despite Continue On Fail: ${result.error.message}`);
			}
		}
	} finally {
		sandbox().faultPlan = undefined;
		logs.restore();
		restoreLogLevel();
	}

	const state = sandbox().state;
	const createdPerOp = new Map<string, number>();
	for (const registration of state.registrations.values()) {
		const opId = registration.fields.opId;
		if (typeof opId === 'string') createdPerOp.set(opId, (createdPerOp.get(opId) ?? 0) + 1);
	}
	for (const count of [...createdPerOp.values(), ...state.serialCreations.values()]) summary.duplicates += count - 1;
	for (const registration of state.registrations.values()) {
		const notes = registration.statusHistory.map((change) => change.note);
		summary.duplicates += notes.length - new Set(notes).size;
	}
	summary.faults = [...faultCounts.values()].reduce((sum, count) => sum + count, 0);
	summary.tokenLeaks += logs.lines.filter((line) => line.includes(sandbox().token)).length;
	summary.tokenLeaks += sandbox().storage.requests.filter((request) =>
		JSON.stringify(request).includes(sandbox().token),
	).length;

	const line =
		`fault injection (seed ${SEED}): ${summary.operations} operations, ${summary.faults} faults injected, ` +
		`${summary.succeededAfterRetry} succeeded after retry, ${summary.errorItems} error items, ` +
		`${summary.itemsLost} items lost, ${summary.duplicates} duplicate creations, ${summary.tokenLeaks} token leaks ` +
		`(in outputs, errors and ${logs.lines.length} captured log lines)`;
	const report = `${line}\nfaults by kind: ${JSON.stringify(Object.fromEntries(faultCounts))}\nerror items by cause: ${JSON.stringify(Object.fromEntries(errorCauses))}`;
	process.stdout.write(`\n${report}\n`);
	if (writesDocs())
		writeDocsSection('reliability.md', 'fault-injection', 'npm run docs:reliability', `\`\`\`\n${report}\n\`\`\``);

	expect(logs.lines.length).toBeGreaterThan(0);
	expect(summary.operations).toBeGreaterThanOrEqual(9 * OPERATIONS_PER_KIND);
	expect(faultCounts.size).toBe(FAULTS.length);
	expect(summary.succeededAfterRetry).toBeGreaterThan(0);
	expect(summary.itemsLost).toBe(0);
	expect(summary.duplicates).toBe(0);
	expect(summary.tokenLeaks).toBe(0);
}, 300_000);
