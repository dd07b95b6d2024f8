export declare const MAX_ASSET_BYTES: number;
export declare const ASSET_HEADERS: string;
/** In dist/public: the versioned URLs of this build's files, read by the Worker for /api/config. */
export declare const ASSET_MANIFEST: string;
