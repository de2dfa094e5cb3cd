/**
 * Child-process entry: one sandbox in its own process (its own event loop and core), driven over
 * HTTP, answering memory readings over the fork IPC channel. Options come as JSON in argv[2].
 */
import { collectGarbage } from './env';
import { startSandbox, type SandboxOptions } from '../sandbox';

export interface MemoryReading {
	heapUsedMb: number;
	rssMb: number;
	externalMb: number;
}

const mb = (bytes: number): number => bytes / (1024 * 1024);

async function main(): Promise<void> {
	const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
	const sandbox = await startSandbox({ port: 0, authPort: 0, finalizeAfterMs: null, ...options });
	process.on('message', (message: { type?: string }) => {
		if (message?.type === 'memory') {
			collectGarbage();
			const usage = process.memoryUsage();
			const reading: MemoryReading = { heapUsedMb: mb(usage.heapUsed), rssMb: mb(usage.rss), externalMb: mb(usage.external) };
			process.send?.({ type: 'memory', reading });
		} else if (message?.type === 'close') {
			void sandbox.close().then(() => process.exit(0));
		}
	});
	// The bench process is gone (ended, killed, crashed): so is this sandbox.
	process.once('disconnect', () => process.exit(0));
	process.send?.({ type: 'ready', info: sandbox.info });
}

main().catch((error: unknown) => {
	process.stderr.write(`bench sandbox child: ${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
