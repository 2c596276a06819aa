import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { seedSampleData } from '../../sandbox/sampleData.cts';
import { Sandbox } from '../../sandbox/service.cts';
import { importExamples } from '../examples.cts';
import { N8N_LINES, nodeOutput, packPackage, root, waitFor } from '../instance.cts';
import { startSmtpServer } from '../smtpServer.cts';
import { checkAgentTool } from './agent.cts';
import { checkDialects, checkDurableScheduler } from './dialects.cts';
import { CHECKS, polling, WEBHOOK_SAMPLES } from './exampleChecks.cts';
import { checkMcpExample, MCP_EXAMPLE } from './mcp.cts';
import { checkPolling } from './polling.cts';
import { checkDeadline, checkFloodedAnswer, checkImportAtServicePace, checkPagedList } from './serviceChecks.cts';
import { callTrigger, pageText, triggerSummary } from './triggerCalls.cts';

/**
 * `npm run test:n8n`: every workflow of examples/ imported into a real n8n (each line of N8N_LINES, the package
 * installed as n8n's community-package installer does) and run against the sandbox as a user runs it: those that
 * start with a Manual Trigger by `n8n execute`, the others by calling their trigger over HTTP on a started n8n —
 * the registration webhook, the receipt form, the MCP example by the official MCP client (mcp.cts). Each run's items are
 * checked. The node as a tool of n8n's AI Agent (agent.cts). Then the Poll Trigger and If Already Registered against
 * readings of the API page other than the real service's, and on n8n 2.x the Poll Trigger under its durable scheduler
 * (dialects.cts). Not part of CI (it needs a real n8n).
 */

async function smokeOneLine(version: string, tarball: string): Promise<boolean> {
	console.log(`\nn8n ${version}`);
	const sandbox = await Sandbox.start();
	seedSampleData(sandbox.state);
	const smtp = await startSmtpServer();
	polling.registered = [];
	polling.mails = smtp.mails;
	const { n8n, examples } = await importExamples(version, tarball, sandbox, smtp.port);
	let passed = true;
	const report = (file: string, problems: string[], detail: string) => {
		passed &&= problems.length === 0;
		console.log(
			`  ${problems.length === 0 ? 'ok  ' : 'FAIL'} ${file}: ${detail}${problems.map((problem) => `\n       ${problem}`).join('')}`,
		);
	};
	try {
		for (const example of examples.filter(({ file }) => CHECKS[file]?.start === 'execute')) {
			const { runs = 1, check } = CHECKS[example.file];
			for (let run = 1; run <= runs; run++) {
				const result = await n8n.execute(example.workflow.id, { timeoutMs: 120_000 });
				const items = nodeOutput(result.data, example.lastNode);
				const error =
					result.data?.data.resultData.error?.message ?? (result.data ? undefined : result.output.stdout.slice(-500));
				const problems = error
					? [`the run failed: ${error}`]
					: check(items, sandbox, run, '', (node) => nodeOutput(result.data, node));
				const held = `the service holds ${sandbox.state.registrations.size} registrations`;
				report(
					example.file,
					problems,
					`n8n execute${runs > 1 ? ` run ${run}` : ''}, ${items.length} item(s) from "${example.lastNode}"${runs > 1 ? `; ${held}` : ''}`,
				);
			}
		}

		passed = (await checkPagedList(n8n, sandbox)).length === 0 && passed;
		passed = (await checkImportAtServicePace(n8n, sandbox)).length === 0 && passed;
		passed = (await checkDeadline(n8n)).length === 0 && passed;
		passed = (await checkFloodedAnswer(n8n)).length === 0 && passed;
		await checkAgentTool(n8n, sandbox, report);

		const triggered = examples.filter(({ file }) => CHECKS[file] && !['execute', 'poll'].includes(CHECKS[file].start));
		const mcpExample = examples.find(({ file }) => file === MCP_EXAMPLE)!;
		for (const example of [...triggered, mcpExample]) await n8n.activate(example.workflow.id);
		await n8n.start();
		const cookie = await n8n.ownerSession();
		for (const example of triggered) {
			const { start, runs = 1, check } = CHECKS[example.file];
			for (let run = 1; run <= runs; run++) {
				const page = await callTrigger(n8n, example, start, run);
				const executions = await waitFor(`execution ${run} of ${example.file}`, async () => {
					// n8n 1.123 may list an execution as ended a moment before its run data is saved.
					const finished = (await n8n.executionsOf(example.workflow.id, cookie)).filter(
						(entry) =>
							entry.status !== 'running' &&
							entry.status !== 'new' &&
							Object.keys(entry.data.resultData.runData).length > 0,
					);
					return finished.length >= run ? finished : undefined;
				});
				const [execution] = executions;
				const items = nodeOutput({ data: execution.data }, example.lastNode);
				// A form's ending page is shown by an execution that waits at it.
				const ended = execution.status === 'success' || (start === 'formPage' && execution.status === 'waiting');
				const problems = ended
					? check(items, sandbox, run, page, (node) => nodeOutput({ data: execution.data }, node))
					: [`the execution ended ${execution.status}: ${execution.data.resultData.error?.message}`];
				report(
					example.file,
					problems,
					`${start === 'webhook' ? `webhook call (${WEBHOOK_SAMPLES[run - 1]})` : 'form call'} on a started n8n${runs > 1 ? `, run ${run}` : ''}, ${items.length} item(s) from "${example.lastNode}"${page.includes('<') ? `; the form ended on: ${JSON.stringify(pageText(page))}` : ''}${start === 'webhook' ? `; the trigger gave ${triggerSummary(nodeOutput({ data: execution.data }, 'Product Registration Trigger'))}` : ''}`,
				);
			}
		}
		await checkMcpExample(n8n, mcpExample, sandbox, report);
		await checkPolling(n8n, sandbox, examples, report);
	} finally {
		await n8n.stop();
		await sandbox.stop();
		await smtp.stop();
		n8n.cleanUp();
	}
	const reportDialect = (problems: string[], line: string) => report('dialects', problems, line);
	await checkDialects(version, tarball, reportDialect);
	if (!version.startsWith('1.')) await checkDurableScheduler(version, tarball, reportDialect);
	const unchecked = readdirSync(join(root, 'examples')).filter(
		(file) => file.endsWith('.json') && !file.startsWith('sample-') && !CHECKS[file] && file !== MCP_EXAMPLE,
	);
	if (unchecked.length > 0) {
		console.log(`  FAIL examples without a check: ${unchecked.join(', ')}`);
		return false;
	}
	return passed;
}

async function main(): Promise<void> {
	const tarball = await packPackage();
	let passed = true;
	for (const version of N8N_LINES) passed = (await smokeOneLine(version, tarball)) && passed;
	console.log(passed ? '\nevery example passed in a real n8n' : '\nsome examples FAILED');
	process.exitCode = passed ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
