import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INode } from 'n8n-workflow';

import type { Sandbox } from '../sandbox/service.cts';
import { RealN8n, root } from './instance.cts';

export interface Example {
	file: string;
	workflow: { id: string; name: string; nodes: INode[]; connections: Record<string, unknown> } & Record<
		string,
		unknown
	>;
	/** The node whose output shows what the workflow did (the one nothing follows). */
	lastNode: string;
}

export const CREDENTIAL = {
	id: 'prCredential0001',
	name: 'Product Registration account',
	type: 'productRegistrationApi',
};

/** The credential that holds the webhook trigger's Shared Secret (its version 2), and the secret it holds. */
export const WEBHOOK_CREDENTIAL = {
	id: 'prWebhookCred001',
	name: 'Product Registration webhook',
	type: 'productRegistrationWebhookApi',
};
export const WEBHOOK_SECRET = 'smoke-webhook-secret-0001';

/** The SMTP credential the e-mail example sends with. */
export const SMTP_CREDENTIAL = { id: 'smtpCredential01', name: 'SMTP account', type: 'smtp' };

/** The Bearer token MCP clients send to the MCP example's trigger, and the credential that holds it. */
export const MCP_TOKEN = 'mcp-client-token';
export const MCP_CREDENTIAL = { id: 'mcpClientsCred01', name: 'MCP clients', type: 'httpBearerAuth' };

/** The workflows of examples/, each with an id and pointed at the imported credential, as a user sets them up. */
export function readExamples(): Example[] {
	return readdirSync(join(root, 'examples'))
		.filter((file) => file.endsWith('.json') && !file.startsWith('sample-'))
		.sort()
		.map((file, index) => {
			const workflow = JSON.parse(readFileSync(join(root, 'examples', file), 'utf8')) as Example['workflow'];
			workflow.id = `example${String(index + 1).padStart(4, '0')}`;
			for (const node of workflow.nodes) {
				for (const credential of [CREDENTIAL, WEBHOOK_CREDENTIAL, SMTP_CREDENTIAL, MCP_CREDENTIAL]) {
					if (node.credentials?.[credential.type])
						node.credentials[credential.type] = { id: credential.id, name: credential.name };
				}
			}
			const lastNode = workflow.nodes.find(
				(node) => node.type !== 'n8n-nodes-base.stickyNote' && !(node.name in workflow.connections),
			)!.name;
			return { file, workflow, lastNode };
		});
}

/**
 * A fresh real n8n with the package installed, the credential for this sandbox, the webhook trigger's secret, the MCP
 * clients' token (and, given its port, a credential for an SMTP server on 127.0.0.1), and every example imported.
 */
export async function importExamples(
	version: string,
	tarball: string,
	sandbox: Sandbox,
	smtpPort?: number,
): Promise<{ n8n: RealN8n; examples: Example[] }> {
	const n8n = await RealN8n.create(version);
	await n8n.installPackage(tarball);
	await n8n.importCredential({ ...CREDENTIAL, data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.token } });
	await n8n.importCredential({ ...WEBHOOK_CREDENTIAL, data: { secret: WEBHOOK_SECRET } });
	await n8n.importCredential({ ...MCP_CREDENTIAL, data: { token: MCP_TOKEN } });
	if (smtpPort !== undefined) {
		await n8n.importCredential({
			...SMTP_CREDENTIAL,
			data: { user: '', password: '', host: '127.0.0.1', port: smtpPort, secure: false, disableStartTls: true },
		});
	}
	const examples = readExamples();
	for (const { workflow } of examples) await n8n.importWorkflow(workflow);
	return { n8n, examples };
}
