/**
 * The Money node as a tool of n8n's own AI Agent, in a real n8n server: a webhook starts the
 * agent, whose OpenAI Chat Model talks to the scripted model of agent/model-server.ts on loopback
 * (the `openAiApi` credential's Base URL), and whose tools are Money nodes (`moneyTool`, Payout →
 * Create with Allow Money Movement in Tool Mode and an agent mandate, docs/agents.md), each
 * argument the model gives a `$fromAI(...)` parameter. On n8n 2.x some tools sit behind a Send
 * Email Human review whose mails go to agent/mail-sink.ts, where a check reads the review and
 * follows its approve or deny link. The model's script calls the tools; the checks read the
 * sandbox's ledger and what the tools told the model. Run by scripts/e2e.ts; the queue-mode tier
 * builds its agent workflow from the same nodes (scripts/queue/scenario-agent.ts).
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { n8nVersion, type Execution, type Json } from '../../scripts/n8n';
import { isSettled } from '../../scripts/n8n/api';
import type { SandboxControlClient } from '../../sandbox/control/client';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { reviewLinks, startMailSink, type Mail, type MailSink } from './agent/mail-sink';
import { SCRIPTED_MODEL, startModelServer, type ModelServer, type Step } from './agent/model-server';
import { BENEFICIARY, keyedWorkflows, OTHER_BENEFICIARY, statusOf, uniqueAmount, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, rerunTools, UNPACED_CREDENTIAL, until, webhookStart } from './rerun-tools';
import { CREDENTIAL_TYPE, money, node, TYPES, type CredentialRef, type Workflow, type WorkflowNode } from './workflows';

const START = 'Start run';
export const AGENT = 'AI Agent';
export const CHAT_MODEL = 'OpenAI Chat Model';
/** The Money tools' node names, which n8n also gives the model as the tools' names. */
const PAY = 'Pay';
const PAY_LISTED = 'PayListed';
const PAY_EXPIRED = 'PayExpired';
const PAY_NO_REFERENCE = 'PayNoReference';
const PAY_OR_REVIEW = 'PayOrReview';
const PAY_DAY = 'PayDay';
const PAY_REVIEWED = 'PayReviewed';
const PAY_TIMED = 'PayTimed';
const PROPOSE = 'ProposePayout';
const PAY_PLAN = 'Pay the approved plan';
/** The Human review nodes (n8n 2.x) in front of PAY_REVIEWED and PAY_TIMED. */
const REVIEW = 'Review payment';
const TIMED_REVIEW = 'Timed review';
const HITL_EMAIL = 'n8n-nodes-base.emailSendHitlTool';
/** Maximum Amount in Tool Mode of every Money tool (XOF). */
export const MAXIMUM = 50_000;
/** Maximum per 24 Hours in Tool Mode of PAY_DAY, whose API client only PAY_DAY pays from as an agent. */
const DAY_LIMIT = 80_000;
const EXPIRED_AT = '2025-01-01T00:00:00';
const PAYOUT_ROUTE = 'post_money_v1_payout';
export const AGENT_VERDICT = 'n8n_agent_mandate';
export const OPENAI_CREDENTIAL = { id: 'e2eOpenAiScripted01', name: 'Scripted model on loopback (e2e)', type: 'openAiApi' };
/** The credential's key: the scripted model reads none. */
export const OPENAI_KEY = 'sk-e2e-scripted-model';
const SMTP_CREDENTIAL = { id: 'e2eSmtpMailSink0001', name: 'Mail sink on loopback (e2e)', type: 'smtp' };
const smtpData = (port: number) => ({ host: '127.0.0.1', port, secure: false, disableStartTls: true, user: '', password: '' });
const DAY_CREDENTIAL: CredentialRef = { id: 'e2eMoneyCredAgentDay', name: 'Money sandbox, second client, unpaced (e2e agent)' };
const UNPACED = { velocityLimit: 10_000, velocityWindowSeconds: 1 };
/** n8n's review webhook ignores requests from bots and from clients that send no User-Agent: the link is followed as a browser would. */
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** What a reviewer reads: the payment's fields one by one (docs/agents.md, "What the reviewer sees"). */
const REVIEW_MESSAGE = "=Pay {{ $tool.parameters.amount }} XOF\nto {{ String($tool.parameters.beneficiary).replace(/[^\\w+.-]/g, '') }}\nReference: {{ String($tool.parameters.businessReference).replace(/[^\\w+.-]/g, '') }}";

const onN8n1 = () => n8nVersion().startsWith('1.');

/** The AI Agent: the newest version on each tested line (3.1 on 2.41; 1.123 has 3). */
export const agentNode = (): WorkflowNode => ({
	name: AGENT,
	type: '@n8n/n8n-nodes-langchain.agent',
	typeVersion: onN8n1() ? 3 : 3.1,
	parameters: { promptType: 'define', text: '={{ $json.body.prompt }}', options: { systemMessage: 'You pay beneficiaries with the Pay tools.' } },
});

/** OpenAI Chat Model 1.3, through the Responses API (its default) or Chat Completions. */
export const modelNode = (responsesApi: boolean): WorkflowNode => ({
	name: CHAT_MODEL,
	type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
	typeVersion: 1.3,
	parameters: { model: { __rl: true, mode: 'id', value: SCRIPTED_MODEL }, responsesApiEnabled: responsesApi, options: { maxRetries: 0 } },
	credentials: { openAiApi: { id: OPENAI_CREDENTIAL.id, name: OPENAI_CREDENTIAL.name } },
});

/**
 * A Money node as the agent's tool: Payout → Create of XOF, the model filling amount, beneficiary
 * and (unless `withReference` is false, Require Business Reference then off) Business Reference;
 * Maximum Amount in Tool Mode MAXIMUM and the mandate's other terms from `mandate`.
 */
export function payTool(name: string, { mandate = {}, withReference = true, cred = UNPACED_CREDENTIAL, continueOnFail = false }: { mandate?: Record<string, unknown>; withReference?: boolean; cred?: CredentialRef; continueOnFail?: boolean } = {}): WorkflowNode {
	const parameters = {
		...money.create('payout', {
			amount: "={{ $fromAI('amount', 'Amount in XOF, a whole number', 'number') }}",
			identifier: "={{ $fromAI('beneficiary', 'The beneficiary account, e.g. GM-1002', 'string') }}",
			...(withReference ? { businessReference: "={{ $fromAI('businessReference', 'A reference unique to this payment', 'string') }}" } : {}),
			options: { maxRetries: 0 },
		}),
		allowMoneyMovementInToolMode: true,
		maxAmountInToolMode: MAXIMUM,
		...mandate,
		descriptionType: 'manual',
		toolDescription: 'Pays an amount in XOF to a beneficiary account',
	};
	return { ...node.money(name, parameters, { cred, continueOnFail }), type: TYPES.moneyTool };
}

/** n8n 2.x's Human review by Send Email (its `…HitlTool`), approve and decline links in the mail; `timeLimitMinutes` resumes it unanswered. */
function reviewNode(name: string, timeLimitMinutes?: number): WorkflowNode {
	const limit = timeLimitMinutes === undefined ? {} : { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: timeLimitMinutes, resumeUnit: 'minutes' } } };
	return {
		name,
		type: HITL_EMAIL,
		typeVersion: 2.1,
		webhookId: crypto.randomUUID(),
		parameters: {
			fromEmail: 'agent@example.test',
			toEmail: 'reviewer@example.test',
			subject: '=Approve {{ $tool.name }}: {{ $tool.parameters.amount }} XOF',
			message: REVIEW_MESSAGE,
			approvalOptions: { values: { approvalType: 'double' } },
			options: limit,
		},
		credentials: { smtp: { id: SMTP_CREDENTIAL.id, name: SMTP_CREDENTIAL.name } },
	};
}

/** A tool of the agent, and the node its `ai_tool` output goes into (the agent, or a review node). */
export interface Attached {
	node: WorkflowNode;
	into?: string;
}

/** Adds the chat model (Responses API or Chat Completions) and the `attached` tools to a workflow holding the AI Agent. */
export function attachToAgent(workflow: Workflow, { responsesApi, attached }: { responsesApi: boolean; attached: Attached[] }): Workflow {
	const subNodes = [modelNode(responsesApi), ...attached.map((each) => each.node)];
	workflow.nodes.push(...subNodes.map((each, i) => ({ id: `${workflow.id}-s${i}`, position: [220 + i * 200, 240], ...each })));
	workflow.connections[CHAT_MODEL] = { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] };
	for (const each of attached) workflow.connections[each.node.name] = { ai_tool: [[{ node: each.into ?? AGENT, type: 'ai_tool', index: 0 }]] };
	return workflow;
}

const parsed = (output: string): Json => {
	try {
		return JSON.parse(output);
	} catch {
		return output;
	}
};

/** The first item a tool result carries (the Money tool answers with its output items). */
export const itemOf = (output: string): Json => {
	const value = parsed(output);
	return Array.isArray(value) ? value[0] : value;
};

/** The refusal the model reads (docs/agents.md): `broken` and `instead` are regular expression sources. */
export const refusedWith = (broken: string, instead = '') =>
	new RegExp(`^Refused by the agent mandate, nothing was paid: ${broken}\\. Do not call again with the same, a smaller or a split amount: for the rest of this execution every payout involving this party is refused\\. .*${instead}`);

/** A sandbox client's agent payouts that count toward its 24 hours (docs/agents.md): tagged, not FAILED or CANCELLED. */
export async function agentSpent(control: SandboxControlClient, clientId: string): Promise<{ total: number; rows: Json[] }> {
	const rows = (await control.ledger(clientId)).payouts.filter((row) => row.metadata && row.metadata[AGENT_VERDICT] !== undefined && !['FAILED', 'CANCELLED'].includes(String(statusOf(row as Json))));
	return { total: rows.reduce((sum, row) => sum + Math.abs(row.amount.value), 0), rows };
}

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const second = info.otherClients[0];
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eAgent');
	const amount = amountSource(33_000);
	const above = () => uniqueAmount(MAXIMUM + 1 + crypto.randomInt(0, 10_000));
	const run = crypto.randomBytes(3).toString('hex');
	const starts: Record<string, string> = {};
	const withReview = !onN8n1();

	/** Webhook (answering with the agent's output, or at once while a review waits) → AI Agent, with the model and `attached` tools. */
	function agentWorkflow(key: string, { responsesApi, attached, answersAtOnce = false }: { responsesApi: boolean; attached: Attached[]; answersAtOnce?: boolean }): Workflow {
		const start = webhookStart(`agent-${key}`);
		starts[key] = start.path;
		const responds = answersAtOnce ? {} : { responseMode: 'lastNode', responseData: 'firstEntryJson' };
		const trigger = { ...start.node, name: START, parameters: { ...start.node.parameters, ...responds } };
		return attachToAgent(wf(key, `e2e AI Agent paying with the Money tool (${key})`, [trigger, agentNode()]), { responsesApi, attached });
	}
	const review = { beyondMandateInToolMode: 'review' };

	/** A person's workflow (not the agent's): the payout the agent proposed, paid only as the plan its preview gave (Approved Plan). */
	function planPaymentWorkflow(): Workflow {
		const start = webhookStart('agent-plan');
		starts.PayPlan = start.path;
		const trigger = { ...start.node, name: START, parameters: { ...start.node.parameters, responseMode: 'lastNode', responseData: 'firstEntryJson' } };
		const parameters = {
			...money.create('payout', {
				amount: '={{ $json.body.amount }}',
				identifier: '={{ $json.body.beneficiary }}',
				businessReference: '={{ $json.body.reference }}',
				options: { approvedPlan: '={{ $json.body.plan }}', maxRetries: 0 },
			}),
		};
		const pay = { ...node.money(PAY_PLAN, parameters, { cred: UNPACED_CREDENTIAL, continueOnFail: true }), position: [440, 0] };
		const workflow = wf('PayPlan', 'e2e a payout an AI Agent proposed, paid by a person with Approved Plan', [trigger, pay]);
		workflow.connections[START] = { main: [[{ node: PAY_PLAN, type: 'main', index: 0 }]] };
		return workflow;
	}
	const workflows = [
		agentWorkflow('Responses', { responsesApi: true, attached: [{ node: payTool(PAY) }] }),
		agentWorkflow('Chat', { responsesApi: false, attached: [{ node: payTool(PAY, { continueOnFail: true }) }] }),
		agentWorkflow('Mandate', {
			responsesApi: false,
			attached: [
				{ node: payTool(PAY_LISTED, { mandate: { allowedPartiesInToolMode: BENEFICIARY } }) },
				{ node: payTool(PAY_EXPIRED, { mandate: { mandateExpiresInToolMode: EXPIRED_AT } }) },
				{ node: payTool(PAY_NO_REFERENCE, { withReference: false }) },
				{ node: payTool(PAY_OR_REVIEW, { mandate: review }) },
			],
		}),
		agentWorkflow('Propose', { responsesApi: true, attached: [{ node: payTool(PROPOSE, { mandate: { preview: true, allowMoneyMovementInToolMode: false } }) }] }),
		planPaymentWorkflow(),
		agentWorkflow('Day', { responsesApi: true, attached: [{ node: payTool(PAY_DAY, { cred: DAY_CREDENTIAL, mandate: { maxAmountPer24HoursInToolMode: DAY_LIMIT } }) }] }),
		...(withReview
			? [
					agentWorkflow('Review', {
						responsesApi: false,
						answersAtOnce: true,
						attached: [
							{ node: payTool(PAY_REVIEWED, { mandate: review }), into: REVIEW },
							{ node: reviewNode(REVIEW) },
							{ node: payTool(PAY_TIMED, { mandate: review }), into: TIMED_REVIEW },
							{ node: reviewNode(TIMED_REVIEW, 1) },
						],
					}),
				]
			: []),
	];

	/** The scripted model and the mail sink, started once; the credentials are pointed at them and the workflows published. */
	let servers: Promise<{ model: ModelServer; mail: MailSink }> | undefined;
	const ready = () =>
		(servers ??= (async () => {
			const [model, mail] = await Promise.all([startModelServer(), startMailSink()]);
			const point = async (credential: { id: string; name: string; type: string }, data: Record<string, unknown>) => {
				const res = await ctx.session.request('PATCH', `/rest/credentials/${credential.id}`, { name: credential.name, type: credential.type, data });
				assert.equal(res.status, 200, `pointing the ${credential.type} credential at its loopback server answered ${res.status}: ${res.text.slice(0, 300)}`);
			};
			await point(OPENAI_CREDENTIAL, { apiKey: OPENAI_KEY, url: model.url });
			if (withReview) await point(SMTP_CREDENTIAL, smtpData(mail.port));
			for (const key of Object.keys(starts)) await ctx.api.activateWorkflow(ids[key]);
			return { model, mail };
		})());

	/** Runs `fn` with both sandbox clients' limits and balance high enough for any run, then puts them back. */
	async function roomy<T>(fn: () => Promise<T>): Promise<T> {
		const before = (await control.getClient(second.clientId)) as Json;
		await control.updateClient(second.clientId, { limits: { ...before.limits, ...UNPACED } });
		try {
			return await tools.withRoomyClient(fn);
		} finally {
			await control.updateClient(second.clientId, { limits: before.limits });
		}
	}

	/** The settled execution of a conversation, found by its case tag. */
	const settledExecution = (key: string, tag: string, timeoutMs?: number): Promise<Execution> =>
		until(
			`the execution of case ${tag}`,
			async () => {
				for (const each of await ctx.api.listExecutions({ workflowId: ids[key], includeData: true, limit: 20 })) {
					if (isSettled(each) && String(ctx.output(each, START)?.[0]?.body?.prompt).includes(`[case:${tag}]`)) return each;
				}
				return undefined;
			},
			{ timeoutMs, intervalMs: 500 },
		);

	/**
	 * One conversation: the model follows `steps`, the webhook is called with a prompt carrying the
	 * case tag, `meanwhile` runs once the webhook answered (a review), and the agent's answer, the
	 * finished execution, what the model was told and the sandbox's payout requests meanwhile come back.
	 */
	async function converse(key: string, tag: string, steps: Step[], prompt: string, { meanwhile, timeoutMs }: { meanwhile?: () => Promise<void>; timeoutMs?: number } = {}) {
		const { model } = await ready();
		model.script(tag, steps);
		const requestsBefore = (await control.counters()).requests[PAYOUT_ROUTE] || 0;
		const started = Date.now();
		const { answer, execution } = await roomy(async () => {
			const start = () => fetch(`${ctx.n8n.url}/webhook/${starts[key]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: `[case:${tag}] ${prompt}` }) });
			// A workflow just published (or n8n just restarted) answers 404, starting nothing, until n8n has registered its webhook.
			let res = await start();
			for (let tries = 0; res.status === 404 && tries < 120; tries++) {
				await sleep(500);
				res = await start();
			}
			const answered = { status: res.status, text: await res.text() };
			if (meanwhile) await meanwhile();
			return { answer: answered, execution: await settledExecution(key, tag, timeoutMs) };
		});
		return {
			answer,
			seconds: (Date.now() - started) / 1000,
			execution,
			told: model.records(tag),
			apis: model.requests(tag).map((request) => request.api),
			payoutRequests: ((await control.counters()).requests[PAYOUT_ROUTE] || 0) - requestsBefore,
		};
	}

	type Conversation = Awaited<ReturnType<typeof converse>>;
	const summary = (result: Conversation, extra: Record<string, unknown> = {}) =>
		JSON.stringify({ ...result, execution: { id: result.execution.id, status: result.execution.status, error: result.execution.data?.resultData?.error?.message }, ...extra });

	const ledgerOf = async (value: number) => tools.ledgerRows('payout', [value]);
	const UNREVIEWED = 'this call did not come through an approved review';
	const aboveMaximum = (value: number) => `amount ${value} is above the maximum per payment of ${MAXIMUM}`;

	/** The agent's payouts of the second client that count toward its 24 hours. */
	const daySpent = () => agentSpent(control, second.clientId);

	/** The second client's payouts of these amounts. */
	const dayPayouts = async (amounts: number[]) => (await control.ledger(second.clientId)).payouts.filter((row) => amounts.includes(Math.abs(row.amount.value)));

	/** The review mail of a payment, once the sink has it. */
	const reviewMail = async (value: number): Promise<Mail> => {
		const { mail } = await ready();
		return until(`the review mail of ${value} XOF`, async () => mail.mails().find((each) => each.body.includes(`Pay ${value} XOF`)), { timeoutMs: 60_000 });
	};

	/** The conversation's execution once it waits for its review. */
	const waitingExecution = (tag: string) =>
		until(`case ${tag} waiting for its review`, async () => {
			for (const each of await ctx.api.listExecutions({ workflowId: ids.Review, includeData: true, limit: 20 })) {
				if (each.status === 'waiting' && String(ctx.output(each, START)?.[0]?.body?.prompt).includes(`[case:${tag}]`)) return each;
			}
			return undefined;
		});

	/** The reviewer's click on a review mail's link, as a browser makes it. */
	async function click(link: string | undefined, what: string): Promise<void> {
		assert.ok(link, `the review mail has no ${what} link`);
		const res = await fetch(link, { headers: { 'user-agent': BROWSER } });
		assert.ok(res.status < 400, `following the ${what} link answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
	}

	/** The model's arguments for a payment, its Business Reference unique to the amount. */
	const paying = (value: number, beneficiary = BENEFICIARY) => ({ amount: value, beneficiary, businessReference: `agent-${run}-${value}` });
	const payCall = (tool: string, value: number, beneficiary = BENEFICIARY) => ({ tool, args: paying(value, beneficiary) });

	/** A gated tool's call as n8n 2.x offers it to the model: the tool's own arguments, and the review's. */
	const gatedCall = (tool: string, args: Record<string, unknown>, hitlParameters: Record<string, unknown> = {}) => ({ tool, args: { toolParameters: args, hitlParameters } });

	/** Runs the person's paying workflow on a proposal and answers with its item. */
	async function payPlan(body: Record<string, unknown>): Promise<Json> {
		await ready();
		const answer = await tools.withRoomyClient(async () => {
			const res = await fetch(`${ctx.n8n.url}/webhook/${starts.PayPlan}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
			return { status: res.status, text: await res.text() };
		});
		assert.equal(answer.status, 200, answer.text.slice(0, 300));
		return JSON.parse(answer.text);
	}

	const checks: Check[] = [
		{
			onN8n1: "n8n implements the agent's tool calls anew per line, and Approved Plan is the pack's on both",
			name: 'AI Agent with the Money tool in Preview Only: the agent proposes a payout and is told its plan id, nothing is paid; a person pays it with Approved Plan once, and a changed amount under that plan is refused',
			async fn() {
				const tag = `propose-${run}`;
				const value = amount();
				const reference = `agent-plan-${run}-${value}`;
				const result = await converse('Propose', tag, [{ call: [{ tool: PROPOSE, args: { amount: value, beneficiary: BENEFICIARY, businessReference: reference } }] }, { answer: 'Proposed; waiting for approval.' }], `Propose paying ${value} XOF to ${BENEFICIARY}.`);
				ctx.note(`agent proposes a plan: ${summary(result)}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(result.payoutRequests, 0);
				assert.equal((await ledgerOf(value)).length, 0);
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				const proposal = itemOf(result.told[0].output);
				assert.equal(proposal.preview, true, result.told[0].output);
				assert.match(String(proposal.plan_id), /^plan-[0-9a-f]{40}$/, result.told[0].output);
				const paid = await payPlan({ amount: value, beneficiary: BENEFICIARY, reference, plan: proposal.plan_id });
				assert.equal(paid.outcome, 'created', JSON.stringify(paid));
				assert.equal((await payPlan({ amount: value, beneficiary: BENEFICIARY, reference, plan: proposal.plan_id })).outcome, 'replayed');
				const changed = await payPlan({ amount: value + 1, beneficiary: BENEFICIARY, reference, plan: proposal.plan_id });
				assert.equal(changed.outcome, 'failed', JSON.stringify(changed));
				assert.deepEqual([(await ledgerOf(value)).length, (await ledgerOf(value + 1)).length], [1, 0]);
			},
		},
		{
			onN8n1: "n8n implements the agent's tool calls anew per line (a tool node run by the engine, its output handed to the model, the engine's tool call id on its input)",
			name: 'AI Agent with the Money tool: a payout within Maximum Amount in Tool Mode is made once, and the model is told its reference',
			async fn() {
				const tag = `within-${run}`;
				const value = amount();
				const result = await converse('Responses', tag, [{ call: [payCall(PAY, value)] }, { answer: `Paid ${value} XOF.` }], `Pay ${value} XOF to ${BENEFICIARY}.`);
				const paid = await ledgerOf(value);
				ctx.note(`agent within the maximum: ${summary(result, { paid: paid.length })}`);
				assert.equal(result.answer.status, 200, result.answer.text);
				assert.equal(parsed(result.answer.text).output, `Paid ${value} XOF.`);
				assert.equal(result.execution.status, 'success');
				assert.deepEqual(result.apis, ['responses', 'responses']);
				assert.equal(paid.length, 1, `payouts of ${value}: ${paid.length}`);
				assert.equal(result.payoutRequests, 1);
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				assert.equal(result.told[0].tool, PAY);
				const item = itemOf(result.told[0].output);
				assert.equal(item.reference, paid[0].reference, result.told[0].output);
				assert.equal(item.outcome, 'created');
				assert.equal(item.mandate?.verdict, 'within mandate', result.told[0].output);
				assert.equal(item.mandate?.tool_call_id, result.told[0].callId, 'the tool call id is the one the model gave, as n8n hands it to the tool');
				const metadata = paid[0].metadata ?? {};
				assert.equal(metadata[AGENT_VERDICT], 'within mandate', JSON.stringify(metadata));
				assert.equal(metadata.n8n_agent_tool_call, result.told[0].callId, JSON.stringify(metadata));
			},
		},
		{
			onN8n1: 'n8n 1.x ends the execution at a tool node that fails: the pack hands the refusal to the model as the tool output there too',
			name: 'AI Agent with the Money tool: a payout above Maximum Amount in Tool Mode is refused before any request, and the model is told the maximum and that nothing was paid',
			async fn() {
				const tag = `above-${run}`;
				const value = above();
				const result = await converse('Responses', tag, [{ call: [payCall(PAY, value)] }, { answer: 'The payment was refused.' }], `Pay ${value} XOF to ${BENEFICIARY}.`);
				const paid = await ledgerOf(value);
				ctx.note(`agent above the maximum: ${summary(result, { paid: paid.length })}`);
				assert.equal(paid.length, 0);
				assert.equal(result.payoutRequests, 0);
				assert.equal(result.execution.status, 'success');
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				const item = itemOf(result.told[0].output);
				assert.equal(item.outcome, 'failed');
				assert.match(String(item.error), refusedWith(aboveMaximum(value)));
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
							payCall(PAY, within, OTHER_BENEFICIARY),
							payCall(PAY, tooMuch),
						],
					},
					{ answer: 'One paid, one refused.' },
				];
				const result = await converse('Chat', tag, steps, `Pay ${within} XOF to ${OTHER_BENEFICIARY} and ${tooMuch} XOF to ${BENEFICIARY}.`);
				const [paidWithin, paidAbove] = [await ledgerOf(within), await ledgerOf(tooMuch)];
				ctx.note(`agent, two calls in one turn: ${summary(result, { paid: [paidWithin.length, paidAbove.length] })}`);
				assert.equal(result.answer.status, 200, result.answer.text);
				assert.equal(result.execution.status, 'success');
				assert.deepEqual(result.apis, ['chat', 'chat']);
				assert.deepEqual([paidWithin.length, paidAbove.length], [1, 0]);
				assert.equal(result.payoutRequests, 1);
				assert.equal(result.told.length, 2, JSON.stringify(result.told));
				const [paidItem, refusedItem] = result.told.map((each) => itemOf(each.output));
				assert.deepEqual([paidItem.outcome, paidItem.amount, paidItem.reference], ['created', within, paidWithin[0].reference], JSON.stringify(result.told));
				assert.match(String(refusedItem.error), refusedWith(aboveMaximum(tooMuch)));
			},
		},
		{
			onN8n1: "n8n implements the agent's tool calls anew per line (each call a new run of the tool node in the same execution)",
			name: 'AI Agent with the Money tool: the model paying again with the same Business Reference moves money once, told replayed with the same reference',
			async fn() {
				const tag = `again-${run}`;
				const value = amount();
				const call = payCall(PAY, value);
				const result = await converse('Responses', tag, [{ call: [call] }, { call: [call] }, { answer: 'Paid once.' }], `Pay ${value} XOF to ${BENEFICIARY}, once.`);
				const paid = await ledgerOf(value);
				ctx.note(`agent paying again: ${summary(result, { paid: paid.length })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 1, `payouts of ${value}: ${paid.length}`);
				assert.equal(result.told.length, 2, JSON.stringify(result.told));
				const [first, again] = result.told.map((each) => itemOf(each.output));
				assert.deepEqual([first.outcome, again.outcome], ['created', 'replayed']);
				assert.deepEqual([first.reference, again.reference], [paid[0].reference, paid[0].reference]);
			},
		},
		{
			onN8n1: 'n8n 1.x ends the execution at a tool node that fails: the pack hands each refusal to the model as the tool output there too',
			name: 'AI Agent with the Money tool: a beneficiary outside Allowed Parties and a call after Mandate Expires are refused before any request, the model told why',
			async fn() {
				const tag = `terms-${run}`;
				const [listed, expired] = [amount(), amount()];
				const steps: Step[] = [
					{
						call: [
							payCall(PAY_LISTED, listed, OTHER_BENEFICIARY),
							payCall(PAY_EXPIRED, expired),
						],
					},
					{ answer: 'Both refused.' },
				];
				const result = await converse('Mandate', tag, steps, `Pay ${listed} XOF to ${OTHER_BENEFICIARY} and ${expired} XOF to ${BENEFICIARY}.`);
				const paid = await tools.ledgerRows('payout', [listed, expired]);
				ctx.note(`agent outside the parties and after expiry: ${summary(result, { paid: paid.length })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 0);
				assert.equal(result.payoutRequests, 0);
				assert.deepEqual(
					result.told.map((each) => each.tool),
					[PAY_LISTED, PAY_EXPIRED],
				);
				const [party, expiry] = result.told.map((each) => itemOf(each.output));
				assert.match(String(party.error), refusedWith(`${OTHER_BENEFICIARY} is not among the mandate's allowed beneficiaries`));
				assert.match(String(expiry.error), refusedWith('the mandate expired at 202[45]-[\\d-]+T[\\d:.]+Z'));
			},
		},
		{
			onN8n1: "n8n implements the agent's tool calls anew per line (identical calls of one turn and of a later turn, each a run of the tool node in one execution)",
			name: 'AI Agent with the Money tool without a Business Reference: the same payment called twice in one turn and again in a later turn is paid once, the later calls told replayed',
			async fn() {
				const tag = `noref-${run}`;
				const value = amount();
				const call = { tool: PAY_NO_REFERENCE, args: { amount: value, beneficiary: BENEFICIARY } };
				const result = await converse('Mandate', tag, [{ call: [call, call] }, { call: [call] }, { answer: 'Paid once.' }], `Pay ${value} XOF to ${BENEFICIARY}.`);
				const paid = await ledgerOf(value);
				ctx.note(`agent, the same call without a reference: ${summary(result, { paid: paid.length })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 1, `payouts of ${value}: ${paid.length}`);
				assert.equal(result.payoutRequests, 1);
				assert.equal(result.told.length, 3, JSON.stringify(result.told));
				const items = result.told.map((each) => itemOf(each.output));
				// n8n 1.123 runs the two calls of a turn last first (2.41 in order): which of them pays is n8n's order; the call that paid is in the payout's metadata.
				const payer = result.told.findIndex((each) => each.callId === paid[0].metadata?.n8n_agent_tool_call);
				assert.ok(payer === 0 || payer === 1, `the payout was made by ${paid[0].metadata?.n8n_agent_tool_call}, not a call of the first turn`);
				assert.deepEqual(
					items.map((item, i) => item.outcome === (i === payer ? 'created' : 'replayed')),
					[true, true, true],
					JSON.stringify(result.told),
				);
				assert.deepEqual(
					items.map((item) => item.reference),
					[paid[0].reference, paid[0].reference, paid[0].reference],
				);
			},
		},
		{
			onN8n1: 'n8n 1.123 has no Human review of tool calls: Pay After Human Review refuses every call beyond the mandate there',
			name: 'AI Agent with the Money tool: with Pay After Human Review, a call beyond the mandate that reached the tool without a review is refused, the model told no approved review reached it',
			async fn() {
				const tag = `unreviewed-${run}`;
				const value = above();
				const result = await converse(
					'Mandate',
					tag,
					[{ call: [payCall(PAY_OR_REVIEW, value)] }, { answer: 'It needs a review.' }],
					`Pay ${value} XOF to ${BENEFICIARY}.`,
				);
				const paid = await ledgerOf(value);
				ctx.note(`agent beyond the mandate without a review: ${summary(result, { paid: paid.length })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 0);
				assert.equal(result.payoutRequests, 0);
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				const item = itemOf(result.told[0].output);
				assert.match(String(item.error), refusedWith(aboveMaximum(value), UNREVIEWED));
			},
		},
		{
			onN8n1: 'the 24-hour total is read from the API, so it holds across executions and an n8n restart on each line (its own server start, its own execution of the tool)',
			name: 'AI Agent with the Money tool: Maximum per 24 Hours holds across two executions and an n8n restart, the call that would pass it refused, the model told the total',
			async fn() {
				const before = await daySpent();
				const first = uniqueAmount(31_000 + crypto.randomInt(0, 1000));
				const next = uniqueAmount(DAY_LIMIT - before.total - first + 1 + crypto.randomInt(0, 100));
				assert.ok(before.total + first <= DAY_LIMIT && next <= MAXIMUM, `the second client's agent payouts already add up to ${before.total}: no room for this check`);
				const pay = (value: number) => [{ call: [payCall(PAY_DAY, value)] }, { answer: 'Done.' }];
				const firstRun = await converse('Day', `day-${run}`, pay(first), `Pay ${first} XOF to ${BENEFICIARY}.`);
				const t = Date.now();
				await ctx.restartN8n();
				const restartSeconds = (Date.now() - t) / 1000;
				const secondRun = await converse('Day', `day-after-${run}`, pay(next), `Pay ${next} XOF to ${BENEFICIARY}.`);
				const after = await daySpent();
				const [paidFirst, paidNext] = [await dayPayouts([first]), await dayPayouts([next])];
				ctx.note(`agent, 24 hours across a restart (${restartSeconds.toFixed(1)} s): ${summary(firstRun)} then ${summary(secondRun, { paid: [paidFirst.length, paidNext.length], spent: [before.total, after.total] })}`);
				assert.deepEqual([firstRun.execution.status, secondRun.execution.status], ['success', 'success']);
				assert.deepEqual([paidFirst.length, paidNext.length], [1, 0]);
				assert.equal(itemOf(firstRun.told[0].output).mandate?.spent_24h_before, before.total, firstRun.told[0].output);
				assert.equal(secondRun.told.length, 1, JSON.stringify(secondRun.told));
				assert.match(String(itemOf(secondRun.told[0].output).error), refusedWith(`amount ${next} would take the last 24 hours' total past the maximum of ${DAY_LIMIT} \\(already ${before.total + first}\\)`));
				assert.equal(secondRun.payoutRequests, 0);
				assert.ok(after.total <= DAY_LIMIT, `the agent's payouts of the last 24 hours add up to ${after.total}, over ${DAY_LIMIT}`);
			},
		},
		{
			onN8n1: 'n8n 1.x ends the execution at a tool node that fails: the pack tells the model an unknown outcome as the tool output there too, and counts it',
			name: "AI Agent with the Money tool: a create the API answers 503 is told to the model as an unknown outcome that counts as spent, and a next call that would pass the 24 hours' maximum with it is refused",
			async fn() {
				const before = await daySpent();
				const room = DAY_LIMIT - before.total;
				assert.ok(room >= 3_000, `the second client's agent payouts already add up to ${before.total}: no room for this check`);
				const next = uniqueAmount(Math.min(room, MAXIMUM) - 2_000 - crypto.randomInt(0, 500));
				const unknown = uniqueAmount(room - next + 1 + crypto.randomInt(0, 500));
				const call = (value: number) => ({ call: [payCall(PAY_DAY, value)] });
				const fault = await control.addFault({ route: PAYOUT_ROUTE, kind: '503', count: 1 });
				let result: Conversation;
				try {
					result = await converse('Day', `unknown-${run}`, [call(unknown), call(next), { answer: 'Check the first with a person.' }], `Pay ${unknown} XOF, then ${next} XOF, to ${BENEFICIARY}.`);
				} finally {
					await control.removeFault(fault.id).catch(() => undefined);
				}
				const paid = await dayPayouts([unknown, next]);
				ctx.note(`agent, a 503 then a call past the 24 hours: ${summary(result, { paid: paid.length, spentBefore: before.total })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 0);
				assert.equal(result.payoutRequests, 1, 'the 503 is the only payout request');
				assert.equal(result.told.length, 2, JSON.stringify(result.told));
				const [unknownItem, refusedItem] = result.told.map((each) => itemOf(each.output));
				assert.match(String(unknownItem.error), /^The payout may have been made, its outcome is unknown \(.*\); it counts as spent\. Do not call again for it/);
				assert.match(String(refusedItem.error), refusedWith(`amount ${next} would take the last 24 hours' total past the maximum of ${DAY_LIMIT} \\(already ${before.total + unknown}\\)`));
			},
		},
		{
			name: 'AI Agent with the Money tool behind Send Email Human review: a call beyond the mandate that a person approved from the mail is paid once, approved in review',
			async fn() {
				const tag = `approved-${run}`;
				const value = above();
				let mail: Mail | undefined;
				const result = await converse('Review', tag, [{ call: [gatedCall(PAY_REVIEWED, paying(value))] }, { answer: 'Paid after review.' }], `Pay ${value} XOF to ${BENEFICIARY}.`, {
					async meanwhile() {
						await waitingExecution(tag);
						mail = await reviewMail(value);
						await click(reviewLinks(mail).approve, 'approve');
					},
				});
				const paid = await ledgerOf(value);
				ctx.note(`agent, approved in review: ${summary(result, { paid: paid.length, subject: mail?.subject })}`);
				assert.match(String(mail?.body), new RegExp(`Pay ${value} XOF\\s*(<br\\s*/?>)?\\s*to ${BENEFICIARY}`), 'the mail shows the amount and the beneficiary');
				assert.doesNotMatch(String(mail?.body), /\[object Object\]/);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 1, `payouts of ${value}: ${paid.length}`);
				assert.equal(result.payoutRequests, 1);
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				const item = itemOf(result.told[0].output);
				assert.deepEqual([item.outcome, item.reference], ['created', paid[0].reference], result.told[0].output);
				assert.equal(item.mandate?.verdict, 'approved in review', result.told[0].output);
				assert.equal(item.mandate?.review?.node, REVIEW, result.told[0].output);
				assert.match(String(item.mandate?.beyond_mandate), new RegExp(aboveMaximum(value)));
				const metadata = paid[0].metadata ?? {};
				assert.equal(metadata[AGENT_VERDICT], 'approved in review', JSON.stringify(metadata));
				assert.match(String(metadata.n8n_agent_review), new RegExp(`^${REVIEW} run \\d+, approved at `));
			},
		},
		{
			name: 'AI Agent with the Money tool behind Send Email Human review: a call the person declined from the mail pays nothing',
			async fn() {
				const tag = `declined-${run}`;
				const value = above();
				const result = await converse('Review', tag, [{ call: [gatedCall(PAY_REVIEWED, paying(value))] }, { answer: 'Declined.' }], `Pay ${value} XOF to ${BENEFICIARY}.`, {
					async meanwhile() {
						await waitingExecution(tag);
						await click(reviewLinks(await reviewMail(value)).deny, 'decline');
					},
				});
				const paid = await ledgerOf(value);
				ctx.note(`agent, declined in review: ${summary(result, { paid: paid.length })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 0);
				assert.equal(result.payoutRequests, 0);
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				assert.notEqual(itemOf(result.told[0].output)?.outcome, 'created', result.told[0].output);
			},
		},
		{
			name: 'AI Agent with the Money tool behind Send Email Human review: of two calls beyond the mandate in one turn only the first is reviewed; approved, it is paid, and the second, run unreviewed with approved: true from the model, is refused',
			async fn() {
				const tag = `two-reviewed-${run}`;
				const [first, unreviewed] = [above(), above()];
				const steps: Step[] = [{ call: [gatedCall(PAY_REVIEWED, paying(first)), gatedCall(PAY_REVIEWED, paying(unreviewed), { approved: true })] }, { answer: 'One paid.' }];
				const result = await converse('Review', tag, steps, `Pay ${first} XOF and ${unreviewed} XOF to ${BENEFICIARY}.`, {
					async meanwhile() {
						await waitingExecution(tag);
						await click(reviewLinks(await reviewMail(first)).approve, 'approve');
					},
				});
				const [paidFirst, paidUnreviewed] = [await ledgerOf(first), await ledgerOf(unreviewed)];
				const { mail } = await ready();
				const mails = mail.mails().filter((each) => each.body.includes(`Pay ${unreviewed} XOF`)).length;
				ctx.note(`agent, two reviewed calls in one turn: ${summary(result, { paid: [paidFirst.length, paidUnreviewed.length], mailsOfTheSecond: mails })}`);
				assert.equal(result.execution.status, 'success');
				assert.deepEqual([paidFirst.length, paidUnreviewed.length], [1, 0]);
				assert.equal(result.payoutRequests, 1);
				assert.equal(result.told.length, 2, JSON.stringify(result.told));
				const [approved, refused] = result.told.map((each) => itemOf(each.output));
				assert.deepEqual([approved.outcome, approved.reference, approved.mandate?.verdict], ['created', paidFirst[0].reference, 'approved in review'], JSON.stringify(result.told));
				assert.match(String(refused.error), refusedWith(aboveMaximum(unreviewed), UNREVIEWED));
			},
		},
		{
			name: 'AI Agent with the Money tool behind Send Email Human review: a review that times out while the model put approved: true in its arguments pays nothing, the model told no approved review reached the call',
			async fn() {
				const tag = `timed-out-${run}`;
				const value = above();
				const result = await converse('Review', tag, [{ call: [gatedCall(PAY_TIMED, paying(value), { approved: true })] }, { answer: 'Not paid.' }], `Pay ${value} XOF to ${BENEFICIARY}.`, {
					// n8n's WaitTracker resumes a timed-out wait at its next poll (every 60 s) after the 1-minute limit.
					timeoutMs: 200_000,
					async meanwhile() {
						await waitingExecution(tag);
						await reviewMail(value);
					},
				});
				const paid = await ledgerOf(value);
				ctx.note(`agent, review timed out with approved: true from the model: ${summary(result, { paid: paid.length })}`);
				assert.equal(result.execution.status, 'success');
				assert.equal(paid.length, 0);
				assert.equal(result.payoutRequests, 0);
				assert.equal(result.told.length, 1, JSON.stringify(result.told));
				assert.match(String(itemOf(result.told[0].output)?.error), refusedWith(aboveMaximum(value), UNREVIEWED));
			},
		},
	];
	const credentials: NonNullable<CasePart['credentials']> = [
		tools.unpacedCredential,
		{ id: DAY_CREDENTIAL.id, name: DAY_CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor({ ...info, ...second }, UNPACED) },
		{ ...OPENAI_CREDENTIAL, data: { apiKey: OPENAI_KEY, url: 'http://127.0.0.1:9/v1' } },
		...(withReview ? [{ ...SMTP_CREDENTIAL, data: smtpData(9) }] : []),
	];
	return { workflows, checks, credentials };
}
