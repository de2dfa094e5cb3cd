import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';

import { SandboxControlClient, type SandboxInfo, type SandboxOptions } from '../sandbox';
import type { MemoryReading } from './sandbox-child';

/** Node flags every bench child gets: TypeScript through ts-node, and gc() for memory readings. */
const CHILD_EXEC_ARGV = ['--expose-gc', '-r', 'ts-node/register/transpile-only'];

export function forkTs(entry: string, args: string[], extraExecArgv: string[] = []): ChildProcess {
	return fork(path.join(__dirname, entry), args, {
		execArgv: [...extraExecArgv, ...CHILD_EXEC_ARGV],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' },
	});
}

/** Resolves with the first IPC message of the given type. */
export function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
	return new Promise((resolve, reject) => {
		const onMessage = (message: { type?: string }) => {
			if (message?.type !== type) return;
			cleanup();
			resolve(message as T);
		};
		const onExit = (code: number | null) => {
			cleanup();
			reject(new Error(`child ${child.pid} exited with ${code} before sending ${type}`));
		};
		const cleanup = () => {
			child.off('message', onMessage);
			child.off('exit', onExit);
		};
		child.on('message', onMessage);
		child.on('exit', onExit);
	});
}

/** A sandbox in its own process. */
export class SandboxProcess {
	private constructor(
		readonly child: ChildProcess,
		readonly info: SandboxInfo,
		readonly control: SandboxControlClient,
	) {}

	static async start(options: SandboxOptions = {}): Promise<SandboxProcess> {
		const child = forkTs('sandbox-child.ts', [JSON.stringify(options)]);
		const { info } = await nextMessage<{ info: SandboxInfo }>(child, 'ready');
		return new SandboxProcess(child, info, new SandboxControlClient(info.controlUrl, { timeoutMs: null }));
	}

	get pid(): number {
		return this.child.pid ?? -1;
	}

	/** Heap (after a full GC) and RSS of the sandbox process. */
	async memory(): Promise<MemoryReading> {
		const reply = nextMessage<{ reading: MemoryReading }>(this.child, 'memory');
		this.child.send({ type: 'memory' });
		return (await reply).reading;
	}

	async close(): Promise<void> {
		if (this.child.exitCode !== null) return;
		const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
		this.child.send({ type: 'close' });
		const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
		await exited;
		clearTimeout(timer);
	}
}
