# stands for pysot/core/config.py of ohhhyeahhh/SiamCAR (a yacs CfgNode there)


class CfgNode(dict):
    def __getattr__(self, name):
        return self[name]

    def __setattr__(self, name, value):
        self[name] = value


cfg = CfgNode()
cfg.TRAIN = CfgNode(EPOCH=20, START_EPOCH=0, BATCH_SIZE=2, BASE_LR=0.005, MOMENTUM=0.9,
                    WEIGHT_DECAY=0.0001, CLS_WEIGHT=1.0, LOC_WEIGHT=2.0, CEN_WEIGHT=1.0,
                    GRAD_CLIP=10.0)
cfg.BACKBONE = CfgNode(TYPE='res50', TRAIN_LAYERS=['layer2', 'layer3', 'layer4'],
                       LAYERS_LR=0.1, TRAIN_EPOCH=10)
cfg.ADJUST = CfgNode(ADJUST=True, TYPE='AdjustAllLayer')
