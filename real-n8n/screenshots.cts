import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import { seedSampleData } from '../sandbox/sampleData.cts';
import { Sandbox } from '../sandbox/service.cts';
import type { Example } from './examples.cts';
import { CREDENTIAL, importExamples } from './examples.cts';
import { N8N_LINES, packPackage, root } from './instance.cts';

/**
 * `npm run screenshots`: the package as a person meets it in n8n's editor, photographed with headless Chromium on
 * each n8n line — the nodes panel with every action, the Operation dropdown of each resource, a registration and a
 * form picked From List, the form example and its Create's Files to Upload, the credential with its Test result, the poll
 * trigger with its Form list, a poll trigger added now with its List Order's description, and the webhook trigger with
 * its URLs. The pictures land in
 * docs/screenshots/n8n-<version>/. Not part of CI.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Chromium flags for this closed network: no background calls home, no sandbox as root. */
const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/**
 * A workflow made for the From List pictures: a Change Status node whose Registration is in From List mode, and a
 * Get Many node whose Form filter is; both of the version a node added now gets (Status a dropdown, Simplify).
 */
const pickerWorkflow = {
	id: 'screenshotPicker',
	name: 'Pick a registration',
	active: false,
	nodes: [
		{
			id: '3d8f4f5e-2f0b-4e0e-9b43-6c1d5f2a7b10',
			name: 'Approve registration',
			type: 'n8n-nodes-product-registration.productRegistration',
			typeVersion: 1.1,
			position: [0, 0],
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: { __rl: true, mode: 'list', value: '' },
				status: 'Confirmed',
			},
			credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
		},
		{
			id: '5a1c2e7d-8b9f-4c3a-a6d2-1e0f9b8c7d64',
			name: 'Registrations of a form',
			type: 'n8n-nodes-product-registration.productRegistration',
			typeVersion: 1.1,
			position: [300, 0],
			parameters: {
				resource: 'registration',
				operation: 'getAll',
				returnAll: true,
				filters: { formSlug: { __rl: true, mode: 'list', value: '' } },
			},
			credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
		},
	],
	connections: {},
};

/**
 * A workflow made for the List Order picture: a Poll Trigger of the version a node added now gets (1.1), its List Order
 * among its Options, as the editor shows it once picked there.
 */
const pollTriggerWorkflow = {
	id: 'screenshotPollTrigger',
	name: 'New registrations, newest first',
	active: false,
	nodes: [
		{
			id: '7e2b9c41-0d5a-4f6e-8a3b-2c9d1e4f5a60',
			name: 'New registration',
			type: 'n8n-nodes-product-registration.productRegistrationPollTrigger',
			typeVersion: 1.1,
			position: [0, 0],
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				event: 'newRegistration',
				options: { listOrder: 'newestFirst' },
			},
			credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
		},
	],
	connections: {},
};

function nodeOf(examples: Example[], file: string, type = 'n8n-nodes-product-registration.productRegistration') {
	const example = examples.find((candidate) => candidate.file === file)!;
	const node = example.workflow.nodes.find((candidate) => candidate.type === type)!;
	return `/workflow/${example.workflow.id}/${node.id}`;
}

async function settle(page: Page, ms = 1500): Promise<void> {
	await page.waitForLoadState('networkidle');
	await page.waitForTimeout(ms);
}

async function photographLine(version: string, tarball: string): Promise<string[]> {
	const folder = join(root, 'docs', 'screenshots', `n8n-${version}`);
	mkdirSync(folder, { recursive: true });
	const sandbox = await Sandbox.start({ port: 5680, storagePort: 5681, token: 'sandbox-token-for-screenshots' });
	seedSampleData(sandbox.state);
	const { n8n, examples } = await importExamples(version, tarball, sandbox);
	await n8n.importWorkflow(pickerWorkflow);
	await n8n.importWorkflow(pollTriggerWorkflow);
	const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	const taken: string[] = [];
	try {
		await n8n.start();
		const [name, ...value] = (await n8n.ownerSession()).split('=');
		const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
		await context.addCookies([{ name, value: value.join('='), url: n8n.baseUrl }]);
		const page = await context.newPage();
		const shoot = async (file: string, path: string, act: (page: Page) => Promise<void>) => {
			await page.goto(`${n8n.baseUrl}${path}`);
			await settle(page);
			await act(page);
			// JPEG, not PNG: n8n's node CLI copies every PNG and SVG of the repository into dist/ when it builds.
			await page.screenshot({ path: join(folder, file), type: 'jpeg', quality: 85 });
			taken.push(join('docs', 'screenshots', `n8n-${version}`, file));
		};

		const spreadsheet = examples.find((candidate) => candidate.file === 'register-products-from-spreadsheet.json')!;
		await shoot('nodes-panel.jpg', `/workflow/${spreadsheet.workflow.id}`, async () => {
			await page.click('[data-test-id="node-creator-plus-button"]');
			await settle(page, 800);
			await page.keyboard.type('Product Registration');
			await settle(page, 1200);
			await page.keyboard.press('Enter');
			await settle(page);
		});
		for (const [file, path] of [
			['operations-registration.jpg', nodeOf(examples, 'register-products-from-spreadsheet.json')],
			['operations-serial-number.jpg', nodeOf(examples, 'import-serial-numbers.json')],
			['operations-file.jpg', nodeOf(examples, 'upload-receipt-and-attach.json')],
		]) {
			await shoot(file, path, async () => {
				await page.click('[data-test-id="parameter-input-operation"]');
				await settle(page, 800);
			});
		}
		await shoot(
			'registration-from-list.jpg',
			`/workflow/${pickerWorkflow.id}/${pickerWorkflow.nodes[0].id}`,
			async () => {
				await page.click('[data-test-id="rlc-input"]');
				await settle(page, 2000);
			},
		);
		await shoot('form-from-list.jpg', `/workflow/${pickerWorkflow.id}/${pickerWorkflow.nodes[1].id}`, async () => {
			await page.click('[data-test-id="rlc-input"]');
			await settle(page, 2000);
		});
		const registerFromForm = examples.find((candidate) => candidate.file === 'register-from-form.json')!;
		await shoot('register-from-form.jpg', `/workflow/${registerFromForm.workflow.id}`, async () => {
			await settle(page, 800);
		});
		await shoot('create-files-to-upload.jpg', nodeOf(examples, 'register-from-form.json'), async () => {
			await page.mouse.move(700, 500);
			await page.mouse.wheel(0, 600);
			await settle(page, 800);
		});
		await shoot('credential-test.jpg', `/home/credentials/${CREDENTIAL.id}`, async () => {
			await settle(page, 2500);
		});
		await shoot(
			'poll-trigger.jpg',
			nodeOf(
				examples,
				'confirm-new-registrations.json',
				'n8n-nodes-product-registration.productRegistrationPollTrigger',
			),
			async () => {
				await page.click('[data-test-id="rlc-input"]');
				await settle(page, 2000);
			},
		);
		await shoot(
			'poll-trigger-list-order.jpg',
			`/workflow/${pollTriggerWorkflow.id}/${pollTriggerWorkflow.nodes[0].id}`,
			async () => {
				// The description shows as the label's tooltip, from the info icon that hovering the label brings up.
				const label = page.locator('[data-test-id="input-label"]', { hasText: 'List Order' }).first();
				await label.hover();
				await settle(page, 500);
				await label.locator('[class*="infoIcon"]').first().hover();
				await settle(page, 1000);
			},
		);
		await shoot(
			'trigger.jpg',
			nodeOf(examples, 'react-to-new-registration.json', 'n8n-nodes-product-registration.productRegistrationTrigger'),
			async () => {
				await page.click('text=Webhook URLs');
				await settle(page, 800);
			},
		);
	} finally {
		await browser.close();
		await n8n.stop();
		await sandbox.stop();
		n8n.cleanUp();
	}
	return taken;
}

async function main(): Promise<void> {
	const tarball = await packPackage();
	for (const version of N8N_LINES) {
		const taken = await photographLine(version, tarball);
		console.log(`n8n ${version}:\n${taken.map((path) => `  ${path}`).join('\n')}`);
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
