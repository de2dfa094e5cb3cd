/**
 * The Money node as a tool of n8n's own AI Agent, in a real n8n server: a webhook starts the
 * agent, whose OpenAI Chat Model talks to the scripted model of agent/model-server.ts on loopback
 * (the `openAiApi` credential's Base URL), and whose tool is the Money node (`moneyTool`, Payout →
 * Create with Allow Money Movement in Tool Mode and a Maximum Amount in Tool Mode), each argument
 * the model gives a `$fromAI(...)` parameter. The model's script calls the tool; the checks read
 * the sandbox's ledger and what the tool told the model (README "Reads", docs/idempotency.md
 * "re-runs"). Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { n8nVersion, type Execution, type Json } from '../../scripts/n8n';
import { isSettled } from '../../scripts/n8n/api';
import { SCRIPTED_MODEL, startModelServer, type ModelServer, type Step } from './agent/model-server';
import { BENEFICIARY, keyedWorkflows, OTHER_BENEFICIARY, uniqueAmount, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, rerunTools, UNPACED_CREDENTIAL, until, webhookStart } from './rerun-tools';
import { money, node, TYPES, type Workflow, type WorkflowNode } from './workflows';

const START = 'Start run';
const AGENT = 'AI Agent';
const CHAT_MODEL = 'OpenAI Chat Model';
/** The Money tool's node name, which n8n also gives the model as the tool's name. */
const PAY = 'Pay';
/** Maximum Amount in Tool Mode of the Money tool (XOF). */
const MAXIMUM = 50_000;
const PAYOUT_ROUTE = 'post_money_v1_payout';
const OPENAI_CREDENTIAL = { id: 'e2eOpenAiScripted01', name: 'Scripted model on loopback (e2e)', type: 'openAiApi' };
/** The credential's key: the scripted model reads none. */
const OPENAI_KEY = 'sk-e2e-scripted-model';

/** The AI Agent: the newest version on each tested line (3.1 on 2.41; 1.123 has 3). */
const agentNode = (): WorkflowNode => ({
	name: AGENT,
	type: '@n8n/n8n-nodes-langchain.agent',
	typeVersion: n8nVersion().startsWith('1.') ? 3 : 3.1,
	parameters: { promptType: 'define', text: '={{ $json.body.prompt }}', options: { systemMessage: 'You pay beneficiaries with the Pay tool.' } },
});

/** OpenAI Chat Model 1.3, through the Responses API (its default) or Chat Completions. */
const modelNode = (responsesApi: boolean): WorkflowNode => ({
	name: CHAT_MODEL,
	type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
	typeVersion: 1.3,
	parameters: { model: { __rl: true, mode: 'id', value: SCRIPTED_MODEL }, responsesApiEnabled: responsesApi, options: { maxRetries: 0 } },
	credentials: { openAiApi: { id: OPENAI_CREDENTIAL.id, name: OPENAI_CREDENTIAL.name } },
});

/** The Money node as the agent's tool: Payout → Create, the model filling amount, beneficiary and Business Reference. */
function payTool(continueOnFail: boolean): WorkflowNode {
	const parameters = {
		...money.create('payout', {
			amount: "={{ $fromAI('amount', 'Amount in XOF, a whole number', 'number') }}",
			identifier: "={{ $fromAI('beneficiary', 'The beneficiary account, e.g. GM-1002', 'string') }}",
			businessReference: "={{ $fromAI('businessReference', 'A reference unique to this payment', 'string') }}",
			options: { maxRetries: 0 },
		}),
		allowMoneyMovementInToolMode: true,
		maxAmountInToolMode: MAXIMUM,
		descriptionType: 'manual',
		toolDescription: 'Pays an amount in XOF to a beneficiary account',
	};
	return { ...node.money(PAY, parameters, { cred: UNPACED_CREDENTIAL, continueOnFail }), type: TYPES.moneyTool };
}

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eAgent');
	const amount = amountSource(33_000);
	const above = () => uniqueAmount(MAXIMUM + 1 + crypto.randomInt(0, 10_000));
	const run = crypto.randomBytes(3).toString('hex');
	const starts: Record<string, string> = {};

	/** Webhook (answering with the agent's output) → AI Agent, with the model and the Money tool attached. */
	function agentWorkflow(key: string, { responsesApi, continueOnFail }: { responsesApi: boolean; continueOnFail: boolean }): Workflow {
		const start = webhookStart(`agent-${key}`);
		starts[key] = start.path;
		const trigger = { ...start.node, name: START, parameters: { ...start.node.parameters, responseMode: 'lastNode', responseData: 'firstEntryJson' } };
		const workflow = wf(key, `e2e AI Agent paying with the Money tool (${key})`, [trigger, agentNode()]);
		const attached = [modelNode(responsesApi), payTool(continueOnFail)].map((each, i) => ({ id: `${workflow.id}-s${i}`, position: [220 + i * 200, 240], ...each }));
		workflow.nodes.push(...attached);
		workflow.connections[CHAT_MODEL] = { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] };
		workflow.connections[PAY] = { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] };
		return workflow;
	}
	const workflows = [agentWorkflow('Responses', { responsesApi: true, continueOnFail: false }), agentWorkflow('Chat', { responsesApi: false, continueOnFail: true })];

	/** The scripted model, started once; the credential is pointed at it and the workflows published. */
	let model: Promise<ModelServer> | undefined;
	const ready = () =>
		(model ??= (async () => {
			const server = await startModelServer();
			const res = await ctx.session.request('PATCH', `/rest/credentials/${OPENAI_CREDENTIAL.id}`, { name: OPENAI_CREDENTIAL.name, type: OPENAI_CREDENTIAL.type, data: { apiKey: OPENAI_KEY, url: server.url } });
			assert.equal(res.status, 200, `pointing the OpenAI credential at the scripted model answered ${res.status}: ${res.text.slice(0, 300)}`);
			for (const key of Object.keys(starts)) await ctx.api.activateWorkflow(ids[key]);
			return server;
		})());

	/**
	 * One conversation: the model follows `steps`, the webhook is called with a prompt carrying the
	 * case tag, and the agent's answer, the finished execution, what the model was told and the
	 * sandbox's payout requests meanwhile come back.
	 */
	async function converse(key: string, tag: string, steps: Step[], prompt: string) {
		const server = await ready();
		server.script(tag, steps);
		const requestsBefore = (await control.counters()).requests[PAYOUT_ROUTE] || 0;
		const started = Date.now();
		const answer = await tools.withRoomyClient(async () => {
			const start = () => fetch(`${ctx.n8n.url}/webhook/${starts[key]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: `[case:${tag}] ${prompt}` }) });
			// A workflow just published answers 404, starting nothing, until n8n has registered its webhook.
			let res = await start();
			for (let tries = 0; res.status === 404 && tries < 120; tries++) {
				await sleep(500);
				res = await start();
			}
			return { status: res.status, text: await res.text() };
		});
		const seconds = (Date.now() - started) / 1000;
		const execution: Execution = await until(`the execution of case ${tag}`, async () => {
			for (const each of await ctx.api.listExecutions({ workflowId: ids[key], includeData: true, limit: 20 })) {
				if (isSettled(each) && String(ctx.output(each, START)?.[0]?.body?.prompt).includes(`[case:${tag}]`)) return each;
			}
			return undefined;
		});
		return {
			answer,
			seconds,
			execution,
			told: server.records(tag),
			apis: server.requests(tag).map((request) => request.api),
			payoutRequests: ((await control.counters()).requests[PAYOUT_ROUTE] || 0) - requestsBefore,
		};
	}

	const ledgerOf = async (value: number) => tools.ledgerRows('payout', [value]);
	const parsed = (output: string): Json => {
		try {
			return JSON.parse(output);
		} catch {
			return output;
		}
	};

	const checks: Check[] = [
		{
			onN8n1: "n8n implements the agent's tool calls anew per line (a tool node run by the engine, its output handed to the model)",
			name: 'AI Agent with the Money tool: a payout within Maximum Amount in Tool Mode is made once, and the model is told its reference',
			async fn() {
				const tag = `within-${run}`;
				const value = amount();
				const reference = `agent-${run}-${value}`;
				const result = await converse('Responses', tag, [{ call: [{ tool: PAY, args: { amount: value, beneficiary: BENEFICIARY, businessReference: reference } }] }, { answer: `Paid ${value} XOF.` }], `Pay ${value} XOF to ${BENEFICIARY}.`);
				const paid = await ledgerOf(value);
				ctx.note(`agent within the maximum: ${JSON.stringify({ ...result, execution: { id: result.execution.id, status: result.execution.status }, paid: paid.length })}`);
				assert.equal(result.answer.status, 200, result.answer.text);
				assert.equal(parsed(result.answer.text).output, `Paid ${value} XOF.`);
				assert.equal(result.execution.status, 'success');
				assert.deepEqual(result.apis, ['responses', 'responses']);
				assert.equal(paid.length, 1, `payouts of ${value}: ${paid.length}`);
				assert.equal(result.payoutRequests, 1);
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				assert.equal(result.told[0].tool, PAY);
				const [item] = parsed(result.told[0].output);
				assert.equal(item.reference, paid[0].reference, result.told[0].output);
				assert.equal(item.outcome, 'created');
			},
		},
		{
			onN8n1: 'n8n 1.x ends the execution at a tool node that fails, where 2.x hands its error to the model',
			name: 'AI Agent with the Money tool: a payout above Maximum Amount in Tool Mode is refused before any request, naming the maximum (2.x tells the model; 1.x fails the execution)',
			async fn() {
				const tag = `above-${run}`;
				const value = above();
				const result = await converse('Responses', tag, [{ call: [{ tool: PAY, args: { amount: value, beneficiary: BENEFICIARY, businessReference: `agent-${run}-${value}` } }] }, { answer: 'The payment was refused.' }], `Pay ${value} XOF to ${BENEFICIARY}.`);
				const paid = await ledgerOf(value);
				const error = result.execution.data?.resultData?.error?.message;
				ctx.note(`agent above the maximum: ${JSON.stringify({ ...result, execution: { id: result.execution.id, status: result.execution.status, error }, paid: paid.length })}`);
				assert.equal(paid.length, 0);
				assert.equal(result.payoutRequests, 0);
				const refusal = new RegExp(`Amount ${value} is above the Maximum Amount in Tool Mode \\(${MAXIMUM}\\)`);
				if (n8nVersion().startsWith('1.')) {
					assert.equal(result.execution.status, 'error');
					assert.match(String(error), refusal);
					assert.deepEqual(result.told, [], 'n8n 1.x asks the model nothing after the failed tool call');
				} else {
					assert.equal(result.execution.status, 'success');
					assert.equal(result.told.length, 1, JSON.stringify(result.told));
					assert.match(result.told[0].output, refusal);
				}
			},
		},
		{
			onN8n1: "n8n implements the agent's tool calls anew per line (several calls of one turn, each a run of the tool node)",
			name: 'AI Agent with the Money tool over Chat Completions: two calls in one turn, one within and one above the maximum, pay once and tell the model both',
			async fn() {
				const tag = `two-${run}`;
				const within = amount();
				const tooMuch = above();
				const steps: Step[] = [
					{
						call: [
							{ tool: PAY, args: { amount: within, beneficiary: OTHER_BENEFICIARY, businessReference: `agent-${run}-${within}` } },
							{ tool: PAY, args: { amount: tooMuch, beneficiary: BENEFICIARY, businessReference: `agent-${run}-${tooMuch}` } },
						],
					},
					{ answer: 'One paid, one refused.' },
				];
				const result = await converse('Chat', tag, steps, `Pay ${within} XOF to ${OTHER_BENEFICIARY} and ${tooMuch} XOF to ${BENEFICIARY}.`);
				const [paidWithin, paidAbove] = [await ledgerOf(within), await ledgerOf(tooMuch)];
				ctx.note(`agent, two calls in one turn: ${JSON.stringify({ ...result, execution: { id: result.execution.id, status: result.execution.status }, paid: [paidWithin.length, paidAbove.length] })}`);
				assert.equal(result.answer.status, 200, result.answer.text);
				assert.equal(result.execution.status, 'success');
				assert.deepEqual(result.apis, ['chat', 'chat']);
				assert.deepEqual([paidWithin.length, paidAbove.length], [1, 0]);
				assert.equal(result.payoutRequests, 1);
				assert.equal(result.told.length, 2, JSON.stringify(result.told));
				const [paidItem, refusedItem] = result.told.map((each) => parsed(each.output)[0]);
				assert.deepEqual([paidItem.outcome, paidItem.amount, paidItem.reference], ['created', within, paidWithin[0].reference], JSON.stringify(result.told));
				assert.match(String(refusedItem.error), new RegExp(`Amount ${tooMuch} is above the Maximum Amount in Tool Mode \\(${MAXIMUM}\\)`));
			},
		},
		{
			onN8n1: "n8n implements the agent's tool calls anew per line (each call a new run of the tool node in the same execution)",
			name: 'AI Agent with the Money tool: the model paying again with the same Business Reference moves money once, told replayed with the same reference',
			async fn() {
				const tag = `again-${run}`;
				const value = amount();
				const call = { tool: PAY, args: { amount: value, beneficiary: BENEFICIARY, businessReference: `agent-${run}-${value}` } };
				const result = await converse('Responses', tag, [{ call: [call] }, { call: [call] }, { answer: 'Paid once.' }], `Pay ${value} XOF to ${BENEFICIARY}, once.`);
				const paid = await ledgerOf(value);
				ctx.note(`agent paying again: ${JSON.stringify({ ...result, execution: { id: result.execution.id, status: result.execution.status }, paid: paid.length })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 1, `payouts of ${value}: ${paid.length}`);
				assert.equal(result.told.length, 2, JSON.stringify(result.told));
				const [first, second] = result.told.map((each) => parsed(each.output)[0]);
				assert.deepEqual([first.outcome, second.outcome], ['created', 'replayed']);
				assert.deepEqual([first.reference, second.reference], [paid[0].reference, paid[0].reference]);
			},
		},
	];
	return { workflows, checks, credentials: [tools.unpacedCredential, { ...OPENAI_CREDENTIAL, data: { apiKey: OPENAI_KEY, url: 'http://127.0.0.1:9/v1' } }] };
}
