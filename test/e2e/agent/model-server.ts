/**
 * A scripted, OpenAI-compatible language model on loopback, for the e2e tier's AI-agent checks:
 * n8n's OpenAI Chat Model node, its credential's Base URL set to `url`, talks to it as it talks to
 * OpenAI (`POST /v1/responses`, the Responses API; `POST /v1/chat/completions`; `GET /v1/models`).
 *
 * A check gives each conversation a script, keyed by a tag `[case:NAME]` in the user's message:
 * step by step, call tools (one or several calls in one turn) or answer with a text. The step a
 * request is at comes from the request itself: the call ids the server hands out name their step,
 * and a request carrying the results of step N's calls is answered with step N + 1, so a request
 * n8n sends again is answered the same. The tool results a request carries are recorded (tool
 * name, call id, output text) for the check to read with `records(tag)`. Anything unexpected (no
 * script for the tag, a step past the script's end, a tool n8n does not offer, a call without its
 * result) answers 500 with what it was.
 */

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step = { call: Array<{ tool: string; args: Record<string, unknown> }> } | { answer: string };

/** A tool result as the model received it. */
export interface ToolResult {
	tool: string;
	callId: string;
	output: string;
}

/** What a request to the model was: which API, and the tools n8n offered. */
export interface ModelRequest {
	api: 'responses' | 'chat';
	tools: string[];
}

export interface ModelServer {
	/** The base URL to give the `openAiApi` credential: http://127.0.0.1:PORT/v1. */
	url: string;
	script(tag: string, steps: Step[]): void;
	records(tag: string): ToolResult[];
	requests(tag: string): ModelRequest[];
	close(): Promise<void>;
}

/** The one model the server lists; it answers whatever model a request names. */
export const SCRIPTED_MODEL = 'e2e-scripted-model';
const TAG = /\[case:([A-Za-z0-9_-]+)\]/g;
const CALL_ID = /^call_(\d+)_(\d+)_(.+)$/;

class Refusal extends Error {}

/** The conversation of one request, read the same way from both APIs. */
interface Conversation {
	userTexts: string[];
	calls: Array<{ callId: string; tool: string }>;
	results: Array<{ callId: string; output: string }>;
	tools: string[];
}

const textOf = (content: unknown): string =>
	typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (part && typeof part.text === 'string' ? part.text : '')).join('\n') : '';

function readResponsesRequest(body: any): Conversation {
	const items: any[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
	const conversation: Conversation = { userTexts: [], calls: [], results: [], tools: (body.tools || []).map((tool: any) => String(tool.name)) };
	for (const item of items) {
		if (item.type === 'function_call') conversation.calls.push({ callId: String(item.call_id), tool: String(item.name) });
		else if (item.type === 'function_call_output') conversation.results.push({ callId: String(item.call_id), output: textOf(item.output) });
		else if (item.role === 'user') conversation.userTexts.push(textOf(item.content));
	}
	return conversation;
}

function readChatRequest(body: any): Conversation {
	const conversation: Conversation = { userTexts: [], calls: [], results: [], tools: (body.tools || []).map((tool: any) => String(tool.function && tool.function.name)) };
	for (const message of body.messages || []) {
		if (message.role === 'user') conversation.userTexts.push(textOf(message.content));
		else if (message.role === 'tool') conversation.results.push({ callId: String(message.tool_call_id), output: textOf(message.content) });
		else if (message.role === 'assistant') for (const call of message.tool_calls || []) conversation.calls.push({ callId: String(call.id), tool: String(call.function && call.function.name) });
	}
	return conversation;
}

/** The list `map` holds under `key`, made empty the first time. */
function listOf<T>(map: Map<string, T[]>, key: string): T[] {
	const list = map.get(key) ?? [];
	map.set(key, list);
	return list;
}

export async function startModelServer(): Promise<ModelServer> {
	const scripts = new Map<string, Step[]>();
	const recorded = new Map<string, ToolResult[]>();
	const seen = new Map<string, ModelRequest[]>();

	/** The tag of the conversation, its next step, and the step's calls with their ids. */
	function nextStep(conversation: Conversation, request: ModelRequest): { step: Step; callIds: string[] } {
		const tags = new Set(conversation.userTexts.flatMap((text) => [...text.matchAll(TAG)].map((match) => match[1])));
		if (tags.size !== 1) throw new Refusal(`expected one [case:NAME] tag in the user's messages, found ${tags.size}: ${[...tags].join(', ')}`);
		const [tag] = tags;
		const steps = scripts.get(tag);
		if (!steps) throw new Refusal(`no script for case ${tag}`);
		listOf(seen, tag).push(request);

		let done = -1;
		for (const call of conversation.calls) {
			const match = CALL_ID.exec(call.callId);
			if (!match || match[3] !== tag) throw new Refusal(`case ${tag}: a tool call id this server did not give: ${call.callId}`);
			done = Math.max(done, Number(match[1]));
		}
		const results = listOf(recorded, tag);
		for (const call of conversation.calls) {
			const result = conversation.results.find((each) => each.callId === call.callId);
			if (!result) throw new Refusal(`case ${tag}: no result for tool call ${call.callId} (${call.tool})`);
			if (!results.some((each) => each.callId === call.callId)) results.push({ tool: call.tool, callId: call.callId, output: result.output });
		}
		const index = done + 1;
		const step = steps[index];
		if (!step) throw new Refusal(`case ${tag}: the script has ${steps.length} steps, asked for step ${index + 1}`);
		if ('answer' in step) return { step, callIds: [] };
		for (const call of step.call) {
			if (!conversation.tools.includes(call.tool)) throw new Refusal(`case ${tag}: step ${index + 1} calls ${call.tool}, n8n offered ${conversation.tools.join(', ') || 'no tools'}`);
		}
		return { step, callIds: step.call.map((_call, i) => `call_${index}_${i}_${tag}`) };
	}

	function responsesAnswer(body: any, { step, callIds }: { step: Step; callIds: string[] }) {
		const output =
			'answer' in step
				? [{ type: 'message', id: `msg_${Date.now()}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.answer, annotations: [] }] }]
				: step.call.map((call, i) => ({ type: 'function_call', id: `fc_${callIds[i]}`, call_id: callIds[i], name: call.tool, arguments: JSON.stringify(call.args), status: 'completed' }));
		return {
			id: `resp_${Date.now()}`,
			object: 'response',
			created_at: Math.floor(Date.now() / 1000),
			status: 'completed',
			model: body.model,
			output,
			error: null,
			incomplete_details: null,
			usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 },
		};
	}

	function chatAnswer(body: any, { step, callIds }: { step: Step; callIds: string[] }) {
		const message =
			'answer' in step
				? { role: 'assistant', content: step.answer }
				: { role: 'assistant', content: null, tool_calls: step.call.map((call, i) => ({ id: callIds[i], type: 'function', function: { name: call.tool, arguments: JSON.stringify(call.args) } })) };
		return {
			id: `chatcmpl_${Date.now()}`,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model: body.model,
			choices: [{ index: 0, message, finish_reason: 'answer' in step ? 'stop' : 'tool_calls', logprobs: null }],
			usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
		};
	}

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const send = (status: number, json: unknown) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(json));
			};
			const route = `${req.method} ${String(req.url).split('?')[0]}`;
			try {
				if (route === 'GET /v1/models') return send(200, { object: 'list', data: [{ id: SCRIPTED_MODEL, object: 'model', created: 0, owned_by: 'e2e' }] });
				if (route !== 'POST /v1/responses' && route !== 'POST /v1/chat/completions') throw new Refusal(`no route ${route}`);
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
				const api = route === 'POST /v1/responses' ? 'responses' : 'chat';
				const conversation = api === 'responses' ? readResponsesRequest(body) : readChatRequest(body);
				// n8n asks for a stream only when its trigger streams the agent's answer (the Chat Trigger, a Webhook set to stream), which these checks do not.
				if (body.stream === true) throw new Refusal('stream: true: this scripted model answers whole responses only');
				const next = nextStep(conversation, { api, tools: conversation.tools });
				return send(200, api === 'responses' ? responsesAnswer(body, next) : chatAnswer(body, next));
			} catch (error) {
				const message = error instanceof Refusal ? error.message : `the scripted model failed: ${error instanceof Error ? error.message : String(error)}`;
				return send(500, { error: { message: `scripted model: ${message}`, type: 'server_error', code: 'scripted_model' } });
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	server.unref();
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		script(tag, steps) {
			scripts.set(tag, steps);
		},
		records: (tag) => [...(recorded.get(tag) || [])],
		requests: (tag) => [...(seen.get(tag) || [])],
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
