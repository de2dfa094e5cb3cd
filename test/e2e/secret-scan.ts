/**
 * One scan for secrets, last of the checks of a run (runLast; each part ends with it): the newest
 * 50 executions of every workflow of the run, trigger workflows included, and the whole n8n log
 * through every restart hold no credential secret, no PIN, no request signature and no request
 * body with its PIN. Run by scripts/e2e.ts, last in its list of case files.
 */

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';

import type { Json } from '../../scripts/n8n';
import { occursIn } from '../harness/secrets';
import type { CasePart, E2eContext } from './case-setup';

const EXECUTIONS_PER_WORKFLOW = 50;

export function build(ctx: E2eContext): CasePart {
	return {
		workflows: [],
		checks: [
			{
				runLast: true,
				onN8n1: 'what n8n stores of an execution (1.x also the static data) and writes to its log is its own per line',
				name: 'no secret, PIN, PIN in a request body or signature in any execution or in the n8n log',
				async fn() {
					const { info } = ctx.sandbox;
					const secrets = [info.clientSecret, info.hmacSecret, info.webhookSecret, info.pin, info.apiKey].filter((value): value is string => typeof value === 'string' && value.length >= 4);
					const workflows = ((await ctx.api.get('/workflows?limit=250')) as { data: Json[] }).data;
					const executions: Json[] = [];
					for (const workflow of workflows) executions.push(...(await ctx.api.listExecutions({ workflowId: String(workflow.id), includeData: true, limit: EXECUTIONS_PER_WORKFLOW })));
					assert.ok(executions.length >= 5, `only ${executions.length} executions to scan`);
					const stored = JSON.stringify(executions);
					const text = stored + fs.readFileSync(ctx.n8n.logFile, 'utf8');
					assert.deepEqual(secrets.filter((secret) => occursIn(text, secret)).map((secret) => `${secret.slice(0, 2)}… (${secret.length} chars)`), []);
					assert.ok(!/"x-hmac-signature"\s*:\s*"[0-9a-f]{64}"/.test(text), 'a request signature appears in an execution or the log');
					assert.ok(!/\\?"pin\\?"\s*:/.test(stored), 'a request body with its pin is kept in an execution');
					ctx.note(`secret scan: ${executions.length} executions of ${workflows.length} workflows and the n8n log`);
				},
			},
		],
	};
}
