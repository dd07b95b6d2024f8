/**
 * The generator Web Worker: writes a fuller answer from the cited passages with a small instruct
 * model (default `HuggingFaceTB/SmolLM2-360M-Instruct`), streaming its text as it is generated. It is loaded
 * only when an admin has switched the generative mode on, as its own bundle (kb-chat-generator.<hash>.js), so
 * neither the chat UI nor the embedder pays for it.
 *
 * It only generates: the widget validates the `[n]` markers (output.ts), renders through its sanitising
 * Markdown renderer, and shows the extractive answer on any error, timeout or "I cannot answer".
 *
 * WebGPU: not used. esbuild.config.mjs aliases transformers.js' `onnxruntime-web/webgpu` import to the CPU
 * build `onnxruntime-web/wasm` for every worker, because the WebGPU build needs the 26.9 MB asyncify/JSEP wasm
 * and Cloudflare Workers serve no asset over 25 MiB. The bundled ONNX Runtime therefore has no WebGPU execution
 * provider, and this worker runs on wasm (single-threaded: threads need cross-origin isolation, which a widget
 * cannot demand of its host page). `ready` reports the device, so the widget can tell.
 * A lead, not shipped: onnxruntime-web also has a JSPI build (`onnxruntime-web/jspi`, WebGPU + CPU, a 16.8 MB
 * wasm, under the limit). Aliased to it, this worker built and ran the test double in Chromium 156 on the CPU
 * (about 8× slower a token than the plain build), and failed on WebGPU here only for want of a GPU adapter;
 * browsers without JSPI cannot run that build at all. So it would be a second, WebGPU-only bundle, chosen when
 * `navigator.gpu.requestAdapter()` answers — untested on a real GPU.
 */
import {
  InterruptableStoppingCriteria,
  pipeline,
  TextStreamer,
  type TextGenerationPipeline,
} from '@huggingface/transformers';
import {
  DEFAULT_MAX_NEW_TOKENS,
  type GeneratorGenerate,
  type GeneratorInit,
  type GeneratorRequest,
  type GeneratorResponse,
} from './messages.ts';
import { buildPrompt, type ChatMessage } from './prompt.ts';
import { downloadProgress, useModelsFrom } from '../workers/transformers-setup.ts';

/**
 * `q4` = `onnx/model_q4.onnx`: 4-bit weights (MatMulNBits, which the wasm backend runs). The SmolLM2 repos
 * publish model.onnx, model_fp16, model_q4 and model_q4f16 (the Hugging Face file lists; no int8
 * `model_quantized.onnx` as the embedder has), and q4f16 needs fp16 compute that the CPU backend lacks.
 */
export const DTYPE = 'q4';

const scope = self as unknown as DedicatedWorkerGlobalScope;
let generator: Promise<TextGenerationPipeline> | undefined;
/** One generation at a time (one model, one core): requests queue behind this. */
let queue: Promise<void> = Promise.resolve();
/** Generations queued or running, by id: cancel interrupts the running one and skips a queued one. */
const active = new Map<number, InterruptableStoppingCriteria>();

function post(message: GeneratorResponse): void {
  scope.postMessage(message);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A macrotask turn. ONNX Runtime's wasm backend runs a step synchronously inside a promise, so a generation
 * loop never gives the event loop a turn: a `cancel` message would only be read after the last token. One
 * turn per step lets it in (a MessageChannel message: unlike setTimeout, never clamped to 4 ms).
 */
const channel = new MessageChannel();
const waiting: (() => void)[] = [];
channel.port1.onmessage = () => waiting.shift()?.();
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}

function load({ model, modelsUrl, wasmUrl }: GeneratorInit): Promise<TextGenerationPipeline> {
  useModelsFrom({ modelsUrl, wasmUrl }, scope.location.origin);
  return pipeline('text-generation', model, {
    dtype: DTYPE,
    device: 'wasm',
    progress_callback: downloadProgress((loaded, total) => post({ type: 'progress', loaded, total })),
  }).then((pipe) => {
    yieldEachStep(pipe as TextGenerationPipeline);
    return pipe as TextGenerationPipeline;
  });
}

/** Lets the event loop in before each model step (see nextTask). */
function yieldEachStep(pipe: TextGenerationPipeline): void {
  const model = pipe.model as unknown as { forward: (inputs: unknown) => Promise<unknown> };
  const forward = model.forward.bind(model);
  model.forward = async (inputs) => {
    await nextTask();
    return forward(inputs);
  };
}

/**
 * How many special tokens (`<|im_start|>`, …) the tokenizer finds in the prompt. prompt.ts neutralises them in
 * passages and question; this checks it for the model actually loaded, whose special tokens may differ.
 */
function countSpecialTokens(pipe: TextGenerationPipeline, messages: ChatMessage[]): number {
  const tokenizer = pipe.tokenizer;
  const special = new Set<number>(tokenizer.all_special_ids as number[]);
  const text = tokenizer.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true }) as string;
  return tokenizer.encode(text, { add_special_tokens: false }).filter((id) => special.has(id)).length;
}

async function generate(
  pipe: TextGenerationPipeline,
  request: GeneratorGenerate,
  stopper: InterruptableStoppingCriteria,
): Promise<void> {
  const { id } = request;
  const started = performance.now();
  const { messages, cited } = buildPrompt(request.question, request.passages);
  if (cited.size === 0) throw new Error('no passage to answer from');
  const expected = countSpecialTokens(
    pipe,
    messages.map((m) => ({ ...m, content: '' })),
  );
  if (countSpecialTokens(pipe, messages) !== expected)
    throw new Error('the prompt holds special tokens the chat template did not write');

  const eos = new Set<number>(
    [pipe.model.generation_config?.eos_token_id ?? pipe.tokenizer.eos_token_id]
      .flat()
      .filter((t): t is number => typeof t === 'number'),
  );
  let text = '';
  let tokens = 0;
  let sawEos = false;
  let firstAt = 0;
  let lastAt = 0;
  const streamer = new TextStreamer(pipe.tokenizer, {
    skip_prompt: true,
    skip_special_tokens: true,
    callback_function: (delta: string) => {
      if (!delta) return;
      text += delta;
      post({ type: 'token', id, text: delta });
    },
    token_callback_function: (ids: bigint[]) => {
      for (const token of ids) {
        if (eos.has(Number(token))) {
          sawEos = true;
          continue;
        }
        tokens++;
        lastAt = performance.now();
        firstAt ||= lastAt;
      }
    },
  });
  if (!stopper.interrupted) {
    await pipe(messages, {
      max_new_tokens: request.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS,
      // Greedy: the most likely continuation of the passages, and the same answer to the same question.
      do_sample: false,
      streamer,
      stopping_criteria: [stopper],
    } as Record<string, unknown>);
  }
  post({
    type: 'done',
    id,
    text,
    cited: [...cited],
    tokens,
    firstTokenMs: firstAt ? Math.round(firstAt - started) : 0,
    tokensPerSecond:
      tokens > 1 && lastAt > firstAt ? Math.round(((tokens - 1) / (lastAt - firstAt)) * 1000 * 10) / 10 : 0,
    stopped: stopper.interrupted ? 'cancelled' : sawEos ? 'eos' : 'length',
  });
}

scope.addEventListener('message', async (event: MessageEvent<GeneratorRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'init':
      try {
        generator ??= load(request);
        const pipe = await generator;
        // Warm-up: the first run compiles kernels and sizes buffers; doing it now keeps the first answer fast.
        await pipe([{ role: 'user', content: 'Hi' }], { max_new_tokens: 1, do_sample: false } as Record<
          string,
          unknown
        >);
        post({ type: 'ready', device: 'wasm' });
      } catch (error) {
        generator = undefined;
        post({ type: 'init-error', message: errorMessage(error) });
      }
      break;
    case 'generate': {
      const { id } = request;
      const stopper = new InterruptableStoppingCriteria();
      active.set(id, stopper);
      queue = queue.then(async () => {
        try {
          if (!generator) throw new Error('generator not initialised');
          await generate(await generator, request, stopper);
        } catch (error) {
          post({ type: 'generate-error', id, message: errorMessage(error) });
        } finally {
          active.delete(id);
        }
      });
      break;
    }
    case 'cancel':
      active.get(request.id)?.interrupt();
      break;
  }
});
