// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts

import type { ServiceDefinition } from "@grpc/grpc-js";
import { deserializer, serializer } from "../_wire.ts";
import {
  decodeImageStatusRequest,
  decodeImageStatusResponse,
  decodeListImagesRequest,
  decodeListImagesResponse,
  encodeImageStatusRequest,
  encodeImageStatusResponse,
  encodeListImagesRequest,
  encodeListImagesResponse,
} from "./image_1.ts";
import {
  decodeImageFsInfoRequest,
  decodeImageFsInfoResponse,
  decodePullImageRequest,
  decodePullImageResponse,
  decodeRemoveImageRequest,
  decodeRemoveImageResponse,
  encodeImageFsInfoRequest,
  encodeImageFsInfoResponse,
  encodePullImageRequest,
  encodePullImageResponse,
  encodeRemoveImageRequest,
  encodeRemoveImageResponse,
} from "./image_2.ts";

/** runtime.v1.ImageService, as grpc-js clients and servers take it. */
export const ImageService: ServiceDefinition = {
  ListImages: {
    path: "/runtime.v1.ImageService/ListImages",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeListImagesRequest),
    requestDeserialize: deserializer(decodeListImagesRequest),
    responseSerialize: serializer(encodeListImagesResponse),
    responseDeserialize: deserializer(decodeListImagesResponse),
    originalName: "listImages",
  },
  ImageStatus: {
    path: "/runtime.v1.ImageService/ImageStatus",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeImageStatusRequest),
    requestDeserialize: deserializer(decodeImageStatusRequest),
    responseSerialize: serializer(encodeImageStatusResponse),
    responseDeserialize: deserializer(decodeImageStatusResponse),
    originalName: "imageStatus",
  },
  PullImage: {
    path: "/runtime.v1.ImageService/PullImage",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodePullImageRequest),
    requestDeserialize: deserializer(decodePullImageRequest),
    responseSerialize: serializer(encodePullImageResponse),
    responseDeserialize: deserializer(decodePullImageResponse),
    originalName: "pullImage",
  },
  RemoveImage: {
    path: "/runtime.v1.ImageService/RemoveImage",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeRemoveImageRequest),
    requestDeserialize: deserializer(decodeRemoveImageRequest),
    responseSerialize: serializer(encodeRemoveImageResponse),
    responseDeserialize: deserializer(decodeRemoveImageResponse),
    originalName: "removeImage",
  },
  ImageFsInfo: {
    path: "/runtime.v1.ImageService/ImageFsInfo",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeImageFsInfoRequest),
    requestDeserialize: deserializer(decodeImageFsInfoRequest),
    responseSerialize: serializer(encodeImageFsInfoResponse),
    responseDeserialize: deserializer(decodeImageFsInfoResponse),
    originalName: "imageFsInfo",
  },
};
