import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { ExecutionLifecycleHooks, HookContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import type { Workflow } from 'n8n-workflow';

import { storedStatuses, type StoredStatuses } from './stored-memory';
import {
	additionalDataFor,
	buildWorkflow,
	CREDENTIAL_ID,
	CREDENTIAL_TYPE,
	MONEY_TRIGGER,
	runWorkflow,
	type Engine,
	type RunResult,
} from './engine';

/** n8n's own body-parser ceiling (N8N_PAYLOAD_SIZE_MAX defaults to 16 MiB). */
const SERVER_BODY_LIMIT = 16 * 1024 * 1024;

export interface WebhookHarnessOptions {
	parameters?: INodeParameters;
	nodeName?: string;
	credentialId?: string;
	/** Adds a NoOp after the trigger so an execution runs a second node; a string: a Code node with that code. */
	downstream?: boolean | string;
	/** The trigger's type version (2 by default, as the workflows saved with 1.0.0). */
	typeVersion?: number;
	/** What n8n would use as its public webhook base (WEBHOOK_URL); defaults to this server. */
	publicWebhookBaseUrl?: string;
	/** Mount the webhook under this prefix on the local server (a reverse proxy that adds one). */
	mountPrefix?: string;
	/** Deliveries as to the Test URL (Execute step): mode `manual`, and n8n saves no static data. */
	testMode?: boolean;
}

export interface DeliveryRecord {
	status: number;
	body: string;
	executed: boolean;
	crashed: boolean;
	path: string;
}

/** A request shaped like the one n8n hands to `webhook()`: the node IncomingMessage, as express extends it. */
export interface HarnessRequest {
	method: string;
	url: string;
	originalUrl: string;
	headers: Record<string, string | string[] | undefined>;
	rawBody: Buffer;
	body: unknown;
	query: Record<string, string>;
	params: Record<string, string>;
	readRawBody(): Promise<void>;
}

/**
 * The parts of an express Response a webhook node may use, over any sink; like Node's response it
 * emits `prefinish` when the answer is ended (whether or not the sender is still there), `finish`
 * when it is written and `close` after (or `close` alone when the sender went away first).
 */
export class ResponseAdapter extends EventEmitter {
	statusCode = 200;
	headersSent = false;
	finished = false;
	readonly headers: Record<string, string> = {};
	body = '';

	constructor(private readonly sink?: ServerResponse) {
		super();
	}

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	setHeader(name: string, value: string | number | readonly string[]): this {
		this.headers[name.toLowerCase()] = String(value);
		return this;
	}

	getHeader(name: string): string | undefined {
		return this.headers[name.toLowerCase()];
	}

	writeHead(code: number, headers?: Record<string, string>): this {
		this.statusCode = code;
		for (const [name, value] of Object.entries(headers ?? {})) this.setHeader(name, value);
		this.headersSent = true;
		return this;
	}

	json(value: unknown): this {
		this.setHeader('content-type', 'application/json; charset=utf-8');
		return this.end(JSON.stringify(value));
	}

	send(value?: unknown): this {
		if (value !== undefined && typeof value !== 'string' && !Buffer.isBuffer(value)) return this.json(value);
		return this.end(value as string | Buffer | undefined);
	}

	end(chunk?: string | Buffer): this {
		if (this.finished) return this;
		if (chunk !== undefined) this.body += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : chunk;
		this.finished = true;
		this.headersSent = true;
		// Node's response emits `prefinish` when the answer is ended, also after the sender went away.
		this.emit('prefinish');
		if (this.sink && !this.sink.writableEnded) {
			this.sink.writeHead(this.statusCode, this.headers);
			this.sink.end(this.body);
		}
		if (!this.gone) {
			this.emit('finish');
			this.emit('close');
		}
		return this;
	}

	private gone = false;

	/** The sender went away before the answer: `close` without `finish`, and the answer is lost. */
	senderGone(): void {
		if (this.finished || this.gone) return;
		this.gone = true;
		this.emit('close');
	}
}

function parseQuery(url: string): Record<string, string> {
	const query: Record<string, string> = {};
	const index = url.indexOf('?');
	if (index < 0) return query;
	for (const [key, value] of new URLSearchParams(url.slice(index + 1))) query[key] = value;
	return query;
}

export function harnessRequest(
	url: string,
	headers: Record<string, string | string[] | undefined>,
	rawBody: Buffer,
	method = 'POST',
): HarnessRequest {
	let body: unknown = {};
	try {
		body = JSON.parse(rawBody.toString('utf8'));
	} catch {
		body = {};
	}
	return {
		method,
		url,
		originalUrl: url,
		headers,
		rawBody,
		body,
		query: parseQuery(url),
		params: {},
		readRawBody: async () => {},
	};
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let tooLarge = false;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) tooLarge = true;
			else chunks.push(chunk);
		});
		req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/**
 * Serves one Money Trigger node over HTTP on 127.0.0.1 the way n8n's webhook server does: each
 * request runs the node's `webhook()` inside n8n-core's WebhookContext with the real request,
 * and when it returns workflow data the workflow runs through WorkflowExecute.
 *
 * Static data lives where n8n 2.41 keeps it: in the workflow's database row, here a JSON text.
 * Every delivery builds a new Workflow from it (LiveWebhooks.executeWebhook), and it is written
 * back whole (JSON.stringify, as the database driver does) only when n8n would, in n8n's order:
 * a node that answers itself, or returns no event, has its static data saved before anything runs;
 * an event left for n8n to answer (responseMode onReceived) first gets a second Workflow over the
 * same object, which clears n8n's changed flag (WorkflowRunner.establishContextForPersistence),
 * then its execution written (its items serialised), created and run, then the static data saved
 * (if marked changed again since), and only then the answer. Deliveries handled at the same time
 * each load their own copy and the last save wins, as in the server.
 */
export class WebhookHarness {
	readonly node: INode;
	/** The workflow of the latest delivery (or activation). */
	workflow: Workflow;
	/** The workflow row's staticData column. */
	private storedStaticData = '{}';
	private readonly nodes: INode[];
	private readonly connections: Record<string, any>;
	private readonly workflowId: string = `wf-${randomUUID().slice(0, 8)}`;
	readonly executions: RunResult[] = [];
	readonly deliveries: DeliveryRecord[] = [];
	/** Every request that reached the webhook path over HTTP, byte for byte. */
	readonly captured: Array<{ url: string; headers: Record<string, string | string[] | undefined>; rawBody: Buffer }> = [];
	/** Processes the next N deliveries fully, then drops the connection instead of answering. */
	loseNextResponses = 0;
	/** The next N runs fail as n8n's do when the execution cannot be written (answered 500). */
	failNextRuns = 0;
	/** Time n8n takes to write and start an execution (a slow database). */
	slowRunMs = 0;
	/**
	 * Time a written execution waits for a free slot before n8n answers (N8N_CONCURRENCY_PRODUCTION_LIMIT:
	 * ActiveExecutions.add awaits the concurrency queue after it created the execution).
	 */
	capacityWaitMs = 0;
	/** A database round trip when n8n reads the workflow row for a request and writes static data. */
	dbLatencyMs = 0;
	/**
	 * Up to this much more before a serialised save reaches the row, drawn per save: concurrent saves
	 * then commit in another order than n8n serialised them, as on Postgres, where each waits for a
	 * connection of the pool (n8n 1.x on SQLite showed it too).
	 */
	saveCommitJitterMs = 0;
	/** The next `count` saves are serialised at once and reach the row `ms` later (a wait for a connection of the pool). */
	slowSaves = { count: 0, ms: 0 };
	private server?: Server;
	private origin = '';

	constructor(
		private readonly engine: Engine,
		private readonly options: WebhookHarnessOptions = {},
		restore?: { node: INode; storedStaticData: string; workflowId?: string },
	) {
		if (restore) this.storedStaticData = restore.storedStaticData;
		if (restore?.workflowId) this.workflowId = restore.workflowId;
		this.node = restore?.node ?? {
			id: randomUUID(),
			name: options.nodeName ?? 'Money Trigger',
			type: MONEY_TRIGGER,
			typeVersion: options.typeVersion ?? 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: options.parameters ?? {},
			credentials: {
				[CREDENTIAL_TYPE]: { id: options.credentialId ?? CREDENTIAL_ID, name: 'Money API account' },
			},
		};
		const nodes: INode[] = [this.node];
		const connections: Record<string, any> = {};
		if (options.downstream) {
			const code = typeof options.downstream === 'string';
			nodes.push({
				id: randomUUID(),
				name: 'After',
				type: code ? 'n8n-nodes-base.code' : 'n8n-nodes-base.noOp',
				typeVersion: code ? 2 : 1,
				position: [200, 0],
				parameters: code ? { jsCode: options.downstream } : {},
			});
			connections[this.node.name] = { main: [[{ node: 'After', type: 'main', index: 0 }]] };
		}
		this.nodes = nodes;
		this.connections = connections;
		this.workflow = this.loadWorkflow();
	}

	/** A Workflow as n8n builds one per request: static data read from the row. */
	private loadWorkflow(staticData: IDataObject = JSON.parse(this.storedStaticData) as IDataObject): Workflow {
		return buildWorkflow(this.engine, { nodes: this.nodes, connections: this.connections, staticData, id: this.workflowId });
	}

	/** The row as n8n reads it for a request: after a database round trip. */
	private async loadRow(): Promise<Workflow> {
		if (this.dbLatencyMs > 0) await sleep(this.dbLatencyMs);
		return this.loadWorkflow();
	}

	/**
	 * WorkflowStaticDataService.saveStaticData: when n8n's changed flag is set, the row is serialised
	 * at once and written after a database round trip (other requests read the old row meanwhile).
	 */
	private async saveStaticData(workflow: Workflow): Promise<void> {
		if (workflow.staticData.__dataChanged !== true || this.options.testMode) return;
		const row = JSON.stringify(workflow.staticData);
		let latency = this.dbLatencyMs + Math.random() * this.saveCommitJitterMs;
		if (this.slowSaves.count > 0) {
			this.slowSaves.count--;
			latency += this.slowSaves.ms;
		}
		if (latency > 0) await sleep(latency);
		this.storedStaticData = row;
		workflow.staticData.__dataChanged = false;
	}

	get nodeType(): INodeType {
		return this.engine.nodeTypes.getByNameAndVersion(this.node.type, this.node.typeVersion);
	}

	get webhookDescription(): IWebhookDescription {
		const description = this.nodeType.description.webhooks?.[0];
		if (!description) throw new Error('The node declares no webhook');
		return description;
	}

	/** Path n8n serves the webhook on: /webhook/<webhookId>/<path>, the Test URL /webhook-test/<webhookId>/<path>. */
	get webhookPath(): string {
		return `${this.options.mountPrefix ?? ''}/${this.endpoint}/${this.node.webhookId}/${this.webhookDescription.path}`;
	}

	private get endpoint(): string {
		return this.options.testMode ? 'webhook-test' : 'webhook';
	}

	get url(): string {
		if (!this.origin) throw new Error('The harness is not listening');
		return `${this.origin}${this.webhookPath}`;
	}

	/** The node's static data as the database holds it. */
	get staticData(): Record<string, unknown> {
		const stored = JSON.parse(this.storedStaticData) as Record<string, Record<string, unknown>>;
		return stored[`node:${this.node.name}`] ?? {};
	}

	/** The whole static data of the workflow as the database holds it. */
	get workflowStaticData(): Record<string, any> {
		return JSON.parse(this.storedStaticData) as Record<string, any>;
	}

	/** The status labels the stored memory holds. */
	remembered(): StoredStatuses {
		return storedStatuses(this.workflowStaticData);
	}

	/**
	 * The same workflow after an n8n restart: a new process (its memory starts empty) that loads
	 * the static data this one saved. Listening on its own port.
	 */
	restarted(): WebhookHarness {
		return new WebhookHarness(this.engine, this.options, { node: this.node, storedStaticData: this.storedStaticData });
	}

	/** The same workflow's Test URL in this process (Execute step), on its own port. */
	testListener(): WebhookHarness {
		return new WebhookHarness(this.engine, { ...this.options, testMode: true }, { node: this.node, storedStaticData: this.storedStaticData, workflowId: this.workflowId });
	}

	counts() {
		const accepted = this.deliveries.filter((delivery) => delivery.status >= 200 && delivery.status < 300).length;
		return {
			received: this.deliveries.length,
			accepted,
			refused: this.deliveries.length - accepted,
			unauthorized: this.deliveries.filter((delivery) => delivery.status === 401).length,
			executions: this.executions.length,
			crashes: this.deliveries.filter((delivery) => delivery.crashed).length,
		};
	}

	additionalData(executionId = randomUUID(), mode: WorkflowExecuteMode = 'webhook'): IWorkflowExecuteAdditionalData {
		const workflowData = { id: this.workflow.id, name: this.workflow.name, nodes: [], connections: {} } as unknown as IWorkflowBase;
		const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
		const additionalData = additionalDataFor(this.engine, hooks, executionId);
		const publicBase = this.options.publicWebhookBaseUrl ?? (this.origin ? `${this.origin}${this.options.mountPrefix ?? ''}/webhook` : undefined);
		if (publicBase) {
			additionalData.webhookBaseUrl = publicBase;
			additionalData.webhookTestBaseUrl = publicBase.replace(/\/webhook$/, '/webhook-test');
		}
		return additionalData;
	}

	private webhookData(additionalData: IWorkflowExecuteAdditionalData): IWebhookData {
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: `${this.node.webhookId}/${this.webhookDescription.path}`,
			webhookDescription: this.webhookDescription,
			workflowId: this.workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: this.node.webhookId,
			isTest: this.options.testMode === true,
		};
	}

	/**
	 * n8n's context for the webhook methods, over the Workflow n8n built for the (de)activation: on
	 * publishing, or (testMode) as TestWebhooks does when the editor listens.
	 */
	private hookContext(workflow: Workflow): HookContext {
		const mode = this.options.testMode ? 'manual' : 'trigger';
		const additionalData = this.additionalData(randomUUID(), mode);
		return new HookContext(workflow, this.node, additionalData, mode, this.options.testMode ? 'manual' : 'activate', this.webhookData(additionalData));
	}

	/**
	 * What n8n does on activation: checkExists, then create when it says false, then save the static
	 * data of the Workflow it built for that, as loaded then, if a method changed it.
	 */
	async activate(): Promise<{ existed: boolean }> {
		const methods = this.nodeType.webhookMethods?.default;
		if (!methods?.checkExists || !methods.create) throw new Error('webhookMethods.default is incomplete');
		const workflow = this.loadWorkflow();
		const existed = await methods.checkExists.call(this.hookContext(workflow));
		if (!existed) {
			const created = await methods.create.call(this.hookContext(workflow));
			if (!created) throw new Error('create() returned false');
		}
		await this.saveStaticData(workflow);
		return { existed };
	}

	async checkExists(): Promise<boolean> {
		return (await this.nodeType.webhookMethods?.default?.checkExists?.call(this.hookContext(this.loadWorkflow()))) ?? false;
	}

	async deactivate(): Promise<boolean> {
		const workflow = this.loadWorkflow();
		const removed = (await this.nodeType.webhookMethods?.default?.delete?.call(this.hookContext(workflow))) ?? false;
		await this.saveStaticData(workflow);
		return removed;
	}

	/**
	 * Runs one delivery through the node in-process (same WebhookContext and workflow as over
	 * HTTP). Returns the status and body the sender would see.
	 */
	async deliver(request: HarnessRequest, sink?: ServerResponse): Promise<DeliveryRecord> {
		const response = new ResponseAdapter(sink);
		sink?.once('close', () => {
			if (!sink.writableEnded) response.senderGone();
		});
		const executionId = randomUUID();
		const workflow = await this.loadRow();
		this.workflow = workflow;
		const additionalData = this.additionalData(executionId);
		additionalData.httpRequest = request as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = response as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const context = new WebhookContext(
			workflow,
			this.node,
			additionalData,
			this.options.testMode ? 'manual' : 'webhook',
			this.webhookData(additionalData),
			[],
			null,
		);

		let result: IWebhookResponseData;
		let crashed = false;
		try {
			result = await (this.nodeType.webhook as NonNullable<INodeType['webhook']>).call(context);
		} catch (error) {
			crashed = true;
			result = { noWebhookResponse: true };
			response.status(500).json({ message: 'Error in workflow', detail: (error as Error).message });
		}

		let executed = false;
		if (result.noWebhookResponse === true && !response.finished) {
			response.status(500).json({ message: 'The node promised a response it never wrote' });
			crashed = true;
		}
		const items: INodeExecutionData[] | undefined = crashed ? undefined : result.workflowData?.[0];
		if (result.noWebhookResponse === true || items === undefined) {
			// The node answered, or there is nothing to run: n8n saves, then (if the node did not) answers.
			await this.saveStaticData(workflow);
			if (!response.finished) response.status(200).json(result.webhookResponse ?? { message: 'Webhook call received' });
			if (items !== undefined) {
				if (this.failNextRuns > 0) this.failNextRuns--; // the run fails after the answer went out: nobody is told
				else executed = await this.execute(workflow, items, executionId);
			}
		} else {
			// n8n 2.41, responseMode onReceived: WorkflowRunner.run first builds another Workflow over
			// the same static data (which clears n8n's changed flag), then writes the execution (its data
			// serialised), creates and starts it; only then does n8n save the static data and answer.
			buildWorkflow(this.engine, { nodes: this.nodes, connections: this.connections, staticData: workflow.staticData, id: this.workflowId });
			if (this.slowRunMs > 0) await sleep(this.slowRunMs);
			JSON.stringify({ executionData: { nodeExecutionStack: [{ data: { main: [items] } }] } });
			if (this.capacityWaitMs > 0) await sleep(this.capacityWaitMs);
			if (this.failNextRuns > 0) {
				// The execution could not be written (SQLite's write lock timed out): n8n answers an error.
				this.failNextRuns--;
				response.status(500).json({ code: 0, message: 'There was a problem executing the workflow' });
			} else {
				executed = await this.execute(workflow, items, executionId);
				await this.saveStaticData(workflow);
				const responseData = this.webhookDescription.responseData;
				if (responseData === 'noData') response.status(200).end();
				else response.status(200).send(responseData ?? 'firstEntryJson');
			}
		}
		const record: DeliveryRecord = {
			status: response.statusCode,
			body: response.body,
			executed,
			crashed,
			path: request.originalUrl,
		};
		this.deliveries.push(record);
		return record;
	}

	private async execute(workflow: Workflow, items: INodeExecutionData[], executionId: string): Promise<boolean> {
		const run = await runWorkflow(this.engine, workflow, { items, startNode: this.node.name, mode: 'webhook', executionId });
		this.executions.push(run);
		return true;
	}

	async listen(): Promise<string> {
		this.server = createServer((req, res) => void this.handle(req, res));
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
		return this.url;
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = req.url ?? '/';
		const pathOnly = url.split('?')[0];
		if (req.method !== 'POST' || pathOnly !== this.webhookPath) {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ message: 'The requested webhook is not registered' }));
			return;
		}
		const rawBody = await readBody(req, SERVER_BODY_LIMIT);
		if (rawBody === null) {
			res.writeHead(413);
			res.end();
			return;
		}
		this.captured.push({ url, headers: { ...req.headers }, rawBody });
		const request = req as unknown as HarnessRequest;
		const shaped = harnessRequest(url, req.headers, rawBody);
		Object.assign(request, { originalUrl: url, rawBody, body: shaped.body, query: shaped.query, params: {}, readRawBody: shaped.readRawBody });
		try {
			if (this.loseNextResponses > 0) {
				this.loseNextResponses--;
				await this.deliver(request);
				res.socket?.destroy();
				return;
			}
			await this.deliver(request, res);
		} catch (error) {
			if (!res.writableEnded) {
				res.writeHead(500);
				res.end((error as Error).message);
			}
		}
	}

	async close(): Promise<void> {
		if (!this.server) return;
		const server = this.server;
		this.server = undefined;
		await new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	}
}

/** A raw HTTP POST with exact bytes and headers, for deliveries the sandbox would never send. */
export async function postRaw(
	url: string,
	headers: Record<string, string>,
	body: Buffer | string,
): Promise<{ status: number; body: string }> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: typeof body === 'string' ? body : new Uint8Array(body),
	});
	return { status: response.status, body: await response.text() };
}
