export declare const MAX_ASSET_BYTES: number;
export declare const ASSET_HEADERS: string;
