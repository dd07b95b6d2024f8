export declare function writeStamp(stampFile: string, build: { inputs: string[]; outputs: string[] }): Promise<void>;
export declare function upToDate(stampFile: string, extraInputs?: string[]): Promise<boolean>;
