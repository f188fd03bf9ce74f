from .tokenlearner_pytorch import TokenLearner, TokenFuser
